/// Connection URLs as errors and output may show them: never with their password.
package enum ConnectionURLRedaction {
    /// `url` with its password replaced by `***`, whether or not it parses as a URL.
    ///
    /// A URL that does not parse (a raw `#`, `/` or `@` in a generated password) can still hold a password, so the
    /// text is read by hand: after `://` (or from the start when there is none), the user name runs up to the first
    /// `:` or `@`; when it ends at a `:`, everything from there to the last `@` may be the password and is hidden.
    /// The value of a query parameter whose name holds `password` (`password=`, libpq's `sslpassword=`) is hidden too.
    ///
    /// ```swift
    /// ConnectionURLRedaction.redacting("postgres://app:Se#cr@t@db:5432/app")   // postgres://app:***@db:5432/app
    /// ConnectionURLRedaction.redacting("postgres://app@db/app")                 // unchanged
    /// ```
    package static func redacting(_ url: String) -> String {
        var text = url[...]
        var prefix = ""
        if let schemeEnd = text.range(of: "://") {
            prefix = String(text[..<schemeEnd.upperBound])
            text = text[schemeEnd.upperBound...]
        }
        if let userEnd = text.firstIndex(where: { $0 == ":" || $0 == "@" }), text[userEnd] == ":",
            let lastAt = text.lastIndex(of: "@"), userEnd < lastAt
        {
            text = text[..<userEnd] + ":***" + text[lastAt...]
        }
        return prefix + redactingPasswordParameters(String(text))
    }

    /// `text` with the value of every parameter of its query whose name holds `password` replaced by `***`.
    private static func redactingPasswordParameters(_ text: String) -> String {
        guard let query = text.firstIndex(of: "?") else { return text }
        let parameters = text[text.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false)
        let redacted = parameters.map { parameter -> String in
            guard let equals = parameter.firstIndex(of: "="),
                parameter[..<equals].decodingNameEscapes().contains("password")
            else { return String(parameter) }
            return String(parameter[...equals]) + "***"
        }
        return String(text[...query]) + redacted.joined(separator: "&")
    }
}

extension Substring {
    /// The name, lowercased, with `%61`-style escapes of ASCII characters decoded: `P%61ssword` is `password`.
    fileprivate func decodingNameEscapes() -> String {
        var result = ""
        var index = startIndex
        while index < endIndex {
            if self[index] == "%", let end = self.index(index, offsetBy: 3, limitedBy: endIndex),
                self[self.index(after: index)..<end].allSatisfy(\.isHexDigit),
                let byte = UInt8(self[self.index(after: index)..<end], radix: 16), byte < 0x80
            {
                result.append(Character(Unicode.Scalar(byte)))
                index = end
            } else {
                result.append(self[index])
                index = self.index(after: index)
            }
        }
        return result.lowercased()
    }
}
