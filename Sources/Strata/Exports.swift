// `import Strata` stays the one import a SQLite user writes: what both backends share (values, errors, `Model`,
// requests and expressions, migrations) lives in StrataCore and comes with it.
@_exported public import StrataCore
