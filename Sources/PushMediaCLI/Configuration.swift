import ArgumentParser
import Foundation
import PushMedia
import PushMediaModel

/// Settings that come from a flag or, when the flag is absent, from an environment variable
/// (documented in docs/configuration.md). A flag always wins.
enum Setting {
    static let queue = "PUSHMEDIA_QUEUE"
    static let out = "PUSHMEDIA_OUT"
    static let baseURL = "PUSHMEDIA_BASE_URL"
    static let profile = "PUSHMEDIA_PROFILE"
    static let concurrency = "PUSHMEDIA_CONCURRENCY"
    static let itemMemoryLimit = "PUSHMEDIA_ITEM_MEMORY_LIMIT_MB"
    static let metricsPort = "PUSHMEDIA_METRICS_PORT"
    static let root = "PUSHMEDIA_ROOT"
    static let state = "PUSHMEDIA_STATE"

    static func environment(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// The flag's value, else the variable's, else nil.
    static func value(_ flag: String?, _ variable: String) -> String? {
        flag ?? environment(variable)
    }

    /// Like ``value(_:_:)`` but required: a usage error names both ways to give it.
    static func required(_ flag: String?, _ variable: String, flagName: String) throws -> String {
        guard let value = value(flag, variable) else {
            throw ValidationError("give \(flagName) or set \(variable)")
        }
        return value
    }

    static func int(_ flag: Int?, _ variable: String, flagName: String, default fallback: Int) throws -> Int {
        if let flag { return flag }
        guard let text = environment(variable) else { return fallback }
        guard let value = Int(text) else { throw ValidationError("\(variable) must be a number for \(flagName), got \"\(text)\"") }
        return value
    }

    /// The base URL from `--base-url` or PUSHMEDIA_BASE_URL, checked (``checkBaseURL(_:named:)``).
    static func baseURL(_ flag: String?) throws -> String? {
        guard let baseURL = value(flag, Self.baseURL) else { return nil }
        try checkBaseURL(baseURL, named: flag == nil ? Self.baseURL : "--base-url")
        return baseURL
    }

    /// A usage error (exit 2) unless `baseURL` is a prefix every attachment's URL can be made
    /// from (``BaseURL/problem(_:)``); the message gives the reason and the value, escaped.
    static func checkBaseURL(_ baseURL: String, named name: String) throws {
        guard let problem = BaseURL.problem(baseURL) else { return }
        throw ValidationError(
            "\(name) \"\(TerminalText.escaped(baseURL))\" \(problem): give the https URL prefix the outputs are served under, "
                + "such as https://cdn.example.com/campaigns/spring")
    }

    /// The profile from `--profile` or PUSHMEDIA_PROFILE, else the defaults.
    static func profile(_ flag: String?) throws -> Profile {
        guard let path = value(flag, Self.profile) else { return .default }
        do {
            return try ProfileLoader.load(path: path)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}

/// `--profile FILE` (or PUSHMEDIA_PROFILE), for the commands that process files or enqueue them.
struct ProfileOption: ParsableArguments {
    @Option(name: .long, help: "Profile file, JSON or YAML (default: $PUSHMEDIA_PROFILE, else built-in).")
    var profile: String?

    /// The profile it names, else the defaults; a file that does not load is a usage error.
    func resolve() throws -> Profile { try Setting.profile(profile) }
}

/// `--base-url URL` (or PUSHMEDIA_BASE_URL): where the outputs are served, for the commands that
/// write a manifest (`process`, `manifest`).
struct BaseURLOption: ParsableArguments {
    @Option(name: .long, help: "Absolute https URL the outputs are served from (default: $PUSHMEDIA_BASE_URL).")
    var baseURL: String?

    /// The checked prefix, or nil when none is given; a bad one is a usage error naming why.
    func resolve() throws -> String? { try Setting.baseURL(baseURL) }
}

/// `--queue URL` (or PUSHMEDIA_QUEUE): `sqlite:PATH` or `postgres://user:pass@host:port/db`.
struct QueueOption: ParsableArguments {
    @Option(name: .long, help: "Queue URL: sqlite:PATH or postgres://user:pass@host:port/db (default: $PUSHMEDIA_QUEUE).")
    var queue: String?

    func url() throws -> String {
        try Setting.required(queue, Setting.queue, flagName: "--queue")
    }
}
