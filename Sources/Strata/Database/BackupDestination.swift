import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a backup goes: the checked, resolved destination file, and the temporary file beside it that becomes the
/// destination once the copy is complete.
///
/// Writing beside and renaming is what keeps a partial copy from ever being at the destination, and makes replacing
/// an existing file one atomic step.
struct BackupDestination {
    /// The path as the caller gave it, for messages.
    let path: String
    /// The absolute path the copy ends up at, with symbolic links resolved.
    let target: String
    /// The file the pages are copied into, in the target's folder.
    let temporaryPath: String
    let overwrite: Bool

    /// Resolves `path` and refuses a destination that would lose data or cannot be written.
    ///
    /// - Parameter source: The absolute path of the source database file; nil for an in-memory database.
    /// - Throws: ``DatabaseError/Code/invalidArgument`` naming what is wrong with the destination.
    init(path: String, overwrite: Bool, source: String?) throws {
        self.path = path
        self.overwrite = overwrite
        guard !path.isEmpty, path != ":memory:" else {
            throw Self.refusal("a backup needs a file path, not \(path.isEmpty ? "an empty one" : path)")
        }
        let slash = path.lastIndex(of: "/")
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        guard !name.isEmpty, name != ".", name != ".." else {
            throw Self.refusal("the backup destination \(path) is a folder; name the file to create")
        }
        guard let resolvedFolder = Self.resolved(folder), Self.isFolder(resolvedFolder) else {
            throw Self.refusal("the folder \(folder) of the backup destination \(path) does not exist")
        }
        var target = (resolvedFolder == "/" ? "" : resolvedFolder) + "/" + name
        // An existing file, or a symbolic link to one: the copy goes where the link points.
        if let resolvedTarget = Self.resolved(target) {
            target = resolvedTarget
        }
        guard !Self.isFolder(target) else {
            throw Self.refusal("the backup destination \(path) is a folder; name the file to create")
        }
        if let source = source.map({ Self.resolved($0) ?? $0 }) {
            if target == source || Self.isSameFile(target, source) {
                throw Self.refusal("the backup destination \(path) is the source database file \(source) itself")
            }
            for suffix in ["-wal", "-shm", "-journal"] where target == source + suffix {
                throw Self.refusal(
                    "the backup destination \(path) is the \(suffix) file of the source database \(source)")
            }
        }
        guard overwrite || !Self.exists(target) else {
            throw Self.refusal("\(path) already exists: a backup replaces a file only when asked to overwrite it")
        }
        // An empty one is harmless: a read-only connection leaves an empty WAL behind.
        for suffix in ["-wal", "-journal"] where Self.size(of: target + suffix) > 0 {
            throw Self.refusal(
                "\(target + suffix) exists beside the backup destination: a database there is open or was not closed "
                    + "cleanly, and SQLite would apply that file to the copy; remove it first")
        }
        self.target = target
        let targetFolder = String(target[..<(target.lastIndex(of: "/") ?? target.startIndex)])
        let targetName = String(target[target.index(after: target.lastIndex(of: "/") ?? target.startIndex)...])
        self.temporaryPath = targetFolder + "/" + targetName + ".strata-backup-" + UUID().uuidString
    }

    /// Moves the complete copy to ``target`` and syncs the folder, so that the new name survives a power loss.
    ///
    /// - Returns: What could not be removed once the copy is at ``target`` (see ``removeTemporaryFile()``): the
    ///   temporary file stays when, after the hard link that published it, removing it fails.
    /// - Throws: ``DatabaseError/Code/invalidArgument`` when the file cannot be moved, or, without ``overwrite``,
    ///   when a file appeared at the target meanwhile. The caller removes the temporary file then (the backup is
    ///   abandoned).
    func publish() throws -> [String] {
        try move()
        syncFolder()
        return removeTemporaryFile()
    }

    /// Renames or links the temporary file to ``target``.
    private func move() throws {
        if overwrite {
            guard rename(temporaryPath, target) == 0 else { throw moveFailure(errno) }
        } else if link(temporaryPath, target) != 0 {
            // A hard link never replaces a file, even one created since the check. Where the file system has no
            // hard links, fall back to checking, then renaming.
            let linkError = errno
            guard linkError != EEXIST, !Self.exists(target) else {
                throw Self.refusal("\(path) already exists: a backup replaces a file only when asked to overwrite it")
            }
            guard rename(temporaryPath, target) == 0 else { throw moveFailure(errno) }
        }
    }

    /// Removes the temporary file and the rollback journal SQLite may have left beside it.
    ///
    /// - Returns: Each file that is still there, with the operating system's error: `PATH (errno 5 (Input/output
    ///   error))`. Empty when nothing is left (a file already gone is not a failure).
    @discardableResult
    func removeTemporaryFile() -> [String] {
        [temporaryPath, temporaryPath + "-journal"].compactMap { file in
            guard unlink(file) != 0 else { return nil }
            let number = errno
            return number == ENOENT ? nil : "\(file) (\(describeSystemError(number)))"
        }
    }

    private func syncFolder() {
        let folder = String(target[..<(target.lastIndex(of: "/") ?? target.startIndex)])
        // Best effort: some file systems cannot sync a folder, and the copy itself is synced already.
        let descriptor = open(folder.isEmpty ? "/" : folder, O_RDONLY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    private func moveFailure(_ code: Int32) -> DatabaseError {
        Self.refusal("could not move the finished backup to \(path): \(describeSystemError(code))")
    }

    private static func refusal(_ message: String) -> DatabaseError {
        DatabaseError(code: .invalidArgument, message: message)
    }

    /// The absolute path with `.`, `..` and symbolic links resolved; nil when nothing is there.
    private static func resolved(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether anything is at `path`, a dangling symbolic link included.
    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The size of the file at `path`; 0 when there is none.
    private static func size(of path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether both paths name one file: the same device and inode, as through a hard link.
    private static func isSameFile(_ first: String, _ second: String) -> Bool {
        var firstInfo = stat()
        var secondInfo = stat()
        guard stat(first, &firstInfo) == 0, stat(second, &secondInfo) == 0 else { return false }
        return firstInfo.st_dev == secondInfo.st_dev && firstInfo.st_ino == secondInfo.st_ino
    }
}

extension DatabaseError {
    /// This error of a failed backup, naming the files it left behind (see
    /// ``BackupDestination/removeTemporaryFile()``), so that the caller knows to remove them.
    func reportingLeftovers(_ leftovers: [String]) -> DatabaseError {
        guard !leftovers.isEmpty else { return self }
        return withMessage(
            message + "; the backup's temporary file could not be removed, remove it by hand: "
                + leftovers.joined(separator: ", "))
    }
}
