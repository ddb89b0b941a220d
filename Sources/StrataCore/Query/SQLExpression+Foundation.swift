public import Foundation

// Foundation values in expressions, bound through the statement's date and UUID strategies.

extension Date: SQLExpressible {}
extension UUID: SQLExpressible {}
extension URL: SQLExpressible {}
extension Data: SQLExpressible {}
extension Decimal: SQLExpressible {}
