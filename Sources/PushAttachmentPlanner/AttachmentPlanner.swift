import Foundation

/// Reads a notification's `userInfo` in any of the shapes PushMedia sends (its own `pm` list,
/// Braze, Adobe, Airship, OneSignal, FCM) and plans the attachments to download.
///
/// Pure and total: any input gives a plan, never a crash; what could not be used is explained
/// in ``AttachmentPlan/problems``.
///
/// ```swift
/// let plan = AttachmentPlanner().plan(userInfo: request.content.userInfo)
/// for step in plan.download.steps { … download step.url within step.timeout … }
/// switch plan.delivery(downloaded: sizes) { … }
/// ```
public struct AttachmentPlanner: Sendable {
    public var policy: DownloadPolicy

    public init(policy: DownloadPolicy = .standard) {
        self.policy = policy
    }

    /// Plans from `UNNotificationContent.userInfo`.
    public func plan(userInfo: [AnyHashable: Any]) -> AttachmentPlan {
        plan(PlannerJSON(any: userInfo))
    }

    /// Plans from the payload as JSON data.
    public func plan(jsonData: Data) -> AttachmentPlan {
        do {
            return plan(try PlannerJSON(jsonData: jsonData))
        } catch {
            return AttachmentPlan(
                source: nil, attachments: [],
                problems: [PlanProblem(.malformedPayload, "(root)", "the payload is not valid JSON")], policy: policy)
        }
    }

    /// Plans from a value tree.
    public func plan(_ payload: PlannerJSON) -> AttachmentPlan {
        var state = ParseState()
        guard let root = payload.objectMembers else {
            state.problem(.malformedPayload, "(root)", "the payload is a \(payload.typeName), not a dictionary")
            return finish(nil, state)
        }
        if let pm = root["pm"] {
            parsePushMedia(pm, &state)
            return finish(.pushMedia, state)
        }
        if let att = root["ab"]?["att"] {
            parseBraze(att, &state)
            return finish(.braze, state)
        }
        for (key, value) in [
            ("com.urbanairship.media_attachment", root["com.urbanairship.media_attachment"]),
            ("media_attachment", root["media_attachment"]),
            ("notification.ios.media_attachment", root["notification"]?["ios"]?["media_attachment"]),
        ] {
            if let value {
                parseAirship(value, path: key, &state)
                return finish(.airship, state)
            }
        }
        for (key, value) in [("att", root["att"]), ("ios_attachments", root["ios_attachments"])] {
            if let value {
                parseOneSignal(value, path: key, &state)
                return finish(.oneSignal, state)
            }
        }
        for (key, value) in [
            ("fcm_options.image", root["fcm_options"]?["image"]),
            ("apns.fcm_options.image", root["apns"]?["fcm_options"]?["image"]),
            ("message.apns.fcm_options.image", root["message"]?["apns"]?["fcm_options"]?["image"]),
        ] {
            if let value {
                state.add(identifier: "fcm", url: value, urlPath: key)
                return finish(.fcm, state)
            }
        }
        if let media = root["adb_media"] {
            state.add(identifier: "adobe", url: media, urlPath: "adb_media")
            return finish(.adobe, state)
        }
        state.problem(
            .noAttachment, "(root)",
            "no attachment key: none of pm, ab.att, com.urbanairship.media_attachment, att, fcm_options.image, adb_media")
        return finish(nil, state)
    }

    private func finish(_ source: PayloadSource?, _ state: ParseState) -> AttachmentPlan {
        var attachments = state.attachments
        var problems = state.problems
        if attachments.count > policy.maxAttachments {
            let dropped = attachments.count - policy.maxAttachments
            problems.append(
                PlanProblem(
                    .tooManyAttachments, "(root)",
                    "\(dropped) attachment(s) past the first \(policy.maxAttachments) are not downloaded"))
            attachments.removeLast(dropped)
        }
        if attachments.isEmpty && problems.isEmpty {
            problems.append(PlanProblem(.noAttachment, "(root)", "the attachment list is empty"))
        }
        // Identifiers must be unique per notification.
        var seen: Set<String> = []
        for i in attachments.indices {
            var id = attachments[i].identifier
            var n = 2
            while seen.contains(id) {
                id = "\(attachments[i].identifier)-\(n)"
                n += 1
            }
            seen.insert(id)
            attachments[i].identifier = id
        }
        return AttachmentPlan(source: source, attachments: attachments, problems: problems, policy: policy)
    }

    // MARK: - Formats

    /// `pm: {v: 1, a: [{u, t, h, c: [x, y, w, h], s}]}`.
    private func parsePushMedia(_ value: PlannerJSON, _ state: inout ParseState) {
        guard let pm = value.objectMembers else {
            return state.problem(.wrongType, "pm", "expected an object, got a \(value.typeName)")
        }
        guard let version = pm["v"] else { return state.problem(.missingKey, "pm.v", "the version is missing") }
        guard version.number == 1 else {
            return state.problem(.unsupportedVersion, "pm.v", "version \(Self.describe(version)) is not supported; this planner reads version 1")
        }
        guard let list = pm["a"] else { return state.problem(.missingKey, "pm.a", "the attachment list is missing") }
        guard let entries = list.arrayElements else {
            return state.problem(.wrongType, "pm.a", "expected an array, got a \(list.typeName)")
        }
        for (i, entry) in entries.enumerated() {
            let path = "pm.a[\(i)]"
            guard let e = entry.objectMembers else {
                state.problem(.wrongType, path, "expected an object, got a \(entry.typeName)")
                continue
            }
            var options = AttachmentOptions()
            if let h = e["h"] {
                guard let hidden = h.flag else {
                    state.problem(.wrongType, "\(path).h", "expected 0, 1 or a boolean, got \(Self.describe(h))")
                    continue
                }
                options.thumbnailHidden = hidden
            }
            if let c = e["c"] {
                guard let numbers = c.arrayElements?.compactMap(\.number), numbers.count == 4, c.arrayElements?.count == 4 else {
                    state.problem(.invalidClipRect, "\(path).c", "expected [x, y, width, height], got \(Self.describe(c))")
                    continue
                }
                let rect = UnitRect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
                guard rect.isValid else {
                    state.problem(.invalidClipRect, "\(path).c", "\(numbers) is not a rect inside the unit square")
                    continue
                }
                options.clippingRect = rect
            }
            if let s = e["s"] {
                guard let time = Self.thumbnailTime(s) else {
                    state.problem(.invalidThumbnailTime, "\(path).s", "expected a finite number ≥ 0, got \(Self.describe(s))")
                    continue
                }
                options.thumbnailTime = time
            }
            state.add(identifier: "pm-\(i)", url: e["u"], urlPath: "\(path).u", typeHint: e["t"], typeHintPath: "\(path).t", options: options)
        }
    }

    /// `ab.att: {url, type}` with `type` a file extension.
    private func parseBraze(_ value: PlannerJSON, _ state: inout ParseState) {
        guard let att = value.objectMembers else {
            return state.problem(.wrongType, "ab.att", "expected an object, got a \(value.typeName)")
        }
        state.add(identifier: "braze", url: att["url"], urlPath: "ab.att.url", fileExtension: att["type"], fileExtensionPath: "ab.att.type")
    }

    /// `{url: string | [string]} | {urls: [{url, url_id}]}`, `thumbnail_id`,
    /// `options {crop {x, y, width, height}, time, hidden}` (shared by all attachments, as
    /// Airship's SDK applies it).
    private func parseAirship(_ value: PlannerJSON, path: String, _ state: inout ParseState) {
        guard let media = value.objectMembers else {
            return state.problem(.wrongType, path, "expected an object, got a \(value.typeName)")
        }
        var options = AttachmentOptions()
        var explicitHidden: Bool?
        if let o = media["options"] {
            guard let opts = o.objectMembers else {
                return state.problem(.wrongType, "\(path).options", "expected an object, got a \(o.typeName)")
            }
            if let crop = opts["crop"] {
                let c = crop.objectMembers
                let values = ["x", "y", "width", "height"].map { c?[$0]?.number }
                guard values.allSatisfy({ $0 != nil }) else {
                    return state.problem(
                        .invalidClipRect, "\(path).options.crop", "expected {x, y, width, height} numbers, got \(Self.describe(crop))")
                }
                let rect = UnitRect(x: values[0]!, y: values[1]!, width: values[2]!, height: values[3]!)
                guard rect.isValid else {
                    return state.problem(.invalidClipRect, "\(path).options.crop", "\(values.map { $0! }) is not a rect inside the unit square")
                }
                options.clippingRect = rect
            }
            if let t = opts["time"] {
                guard let time = Self.thumbnailTime(t) else {
                    return state.problem(.invalidThumbnailTime, "\(path).options.time", "expected a finite number ≥ 0, got \(Self.describe(t))")
                }
                options.thumbnailTime = time
            }
            if let h = opts["hidden"] {
                guard let hidden = h.flag else {
                    return state.problem(.wrongType, "\(path).options.hidden", "expected a boolean, got \(Self.describe(h))")
                }
                explicitHidden = hidden
            }
        }
        var thumbnailID: String?
        if let t = media["thumbnail_id"] {
            guard let id = t.string else {
                return state.problem(.wrongType, "\(path).thumbnail_id", "expected a string, got a \(t.typeName)")
            }
            thumbnailID = id
        }
        // (identifier, url value, path)
        var entries: [(String?, PlannerJSON, String)] = []
        if let urls = media["urls"] {
            guard let list = urls.arrayElements else {
                return state.problem(.wrongType, "\(path).urls", "expected an array, got a \(urls.typeName)")
            }
            for (i, entry) in list.enumerated() {
                guard let e = entry.objectMembers, let url = e["url"] else {
                    state.problem(.wrongType, "\(path).urls[\(i)]", "expected {url, url_id}, got \(Self.describe(entry))")
                    continue
                }
                if let id = e["url_id"], id.string == nil {
                    state.problem(.wrongType, "\(path).urls[\(i)].url_id", "expected a string, got a \(id.typeName)")
                    continue
                }
                entries.append((e["url_id"]?.string, url, "\(path).urls[\(i)].url"))
            }
        } else if let url = media["url"] {
            if let list = url.arrayElements {
                entries = list.enumerated().map { (nil, $1, "\(path).url[\($0)]") }
            } else {
                entries = [(nil, url, "\(path).url")]
            }
        } else {
            return state.problem(.missingKey, "\(path).url", "neither url nor urls is present")
        }
        for (i, (id, url, urlPath)) in entries.enumerated() {
            var o = options
            o.thumbnailHidden = explicitHidden ?? (thumbnailID != nil && thumbnailID != (id ?? ""))
            state.add(identifier: id ?? "airship-\(i)", url: url, urlPath: urlPath, options: o)
        }
    }

    /// `{id: url, …}`, in the order of the ids (numerically when all are numbers).
    private func parseOneSignal(_ value: PlannerJSON, path: String, _ state: inout ParseState) {
        guard let att = value.objectMembers else {
            return state.problem(.wrongType, path, "expected an object of {id: url}, got a \(value.typeName)")
        }
        let ids = att.keys.sorted { a, b in
            if let x = Int(a), let y = Int(b), x != y { return x < y }
            return a < b
        }
        for id in ids {
            state.add(identifier: id, url: att[id], urlPath: "\(path).\(id)")
        }
    }

    private static func thumbnailTime(_ value: PlannerJSON) -> Double? {
        guard let t = value.number, t.isFinite, t >= 0 else { return nil }
        return t
    }

    /// A short, bounded rendering of a value for messages.
    static func describe(_ value: PlannerJSON) -> String {
        let text: String
        switch value {
        case .string(let s): text = "\"\(s)\""
        case .number(let d): text = "\(d)"
        case .bool(let b): text = "\(b)"
        case .null: text = "null"
        case .array(let a): text = "an array of \(a.count)"
        case .object(let o): text = "an object with keys \(o.keys.sorted().prefix(5).joined(separator: ", "))"
        case .unsupported(let name): text = "a \(name)"
        }
        return text.count > 80 ? String(text.prefix(77)) + "…" : text
    }
}

/// Attachments and problems found so far.
struct ParseState {
    var attachments: [PlannedAttachment] = []
    var problems: [PlanProblem] = []

    mutating func problem(_ code: PlanProblem.Code, _ path: String, _ message: String) {
        problems.append(PlanProblem(code, path, message))
    }

    /// Validates the URL and the type and appends the attachment, or a problem.
    ///
    /// The type comes from the type hint when given, else the file extension when given (Braze's
    /// `type`), else the URL path's extension.
    mutating func add(
        identifier: String, url: PlannerJSON?, urlPath: String,
        typeHint: PlannerJSON? = nil, typeHintPath: String = "",
        fileExtension: PlannerJSON? = nil, fileExtensionPath: String = "",
        options: AttachmentOptions = AttachmentOptions()
    ) {
        guard let url else { return problem(.missingKey, urlPath, "the URL is missing") }
        guard let string = url.string else {
            return problem(.wrongType, urlPath, "expected a URL string, got a \(url.typeName)")
        }
        guard let parsed = Self.httpsURL(string, path: urlPath, &self) else { return }
        let urlExtension = parsed.pathExtension.lowercased()

        let type: AttachmentFileType
        var ext: String
        if let typeHint {
            guard let uti = typeHint.string else {
                return problem(.wrongType, typeHintPath, "expected a UTI string, got a \(typeHint.typeName)")
            }
            guard let t = AttachmentFileType.forTypeHint(uti) else {
                return problem(.unsupportedType, typeHintPath, "\(uti) is not a type iOS accepts as a notification attachment")
            }
            type = t
            ext = t.fileExtensions.contains(urlExtension) ? urlExtension : t.fileExtensions[0]
        } else if let fileExtension {
            guard let e = fileExtension.string else {
                return problem(.wrongType, fileExtensionPath, "expected a file extension string, got a \(fileExtension.typeName)")
            }
            guard let t = AttachmentFileType.forExtension(e) else {
                return problem(.unsupportedType, fileExtensionPath, "\"\(e)\" is not an extension iOS accepts for notification attachments")
            }
            type = t
            ext = e.lowercased()
            if ext.hasPrefix(".") { ext.removeFirst() }
        } else {
            guard let t = AttachmentFileType.forExtension(urlExtension) else {
                return problem(
                    .unsupportedType, urlPath,
                    urlExtension.isEmpty
                        ? "cannot tell the type: the URL has no extension and the payload gives no type"
                        : "\".\(urlExtension)\" is not an extension iOS accepts for notification attachments")
            }
            type = t
            ext = urlExtension
        }
        attachments.append(PlannedAttachment(identifier: identifier, url: parsed, fileExtension: ext, type: type, options: options))
    }

    private static func httpsURL(_ string: String, path: String, _ state: inout ParseState) -> URL? {
        if string.isEmpty || string.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 }) {
            state.problem(.invalidURL, path, "\"\(string.prefix(80))\" is empty or contains whitespace")
            return nil
        }
        guard let components = URLComponents(string: string), let url = components.url else {
            state.problem(.invalidURL, path, "\"\(string.prefix(80))\" is not a URL")
            return nil
        }
        guard let scheme = components.scheme else {
            state.problem(.invalidURL, path, "\"\(string.prefix(80))\" is not absolute")
            return nil
        }
        guard scheme.lowercased() == "https" else {
            state.problem(.insecureURL, path, "\"\(string.prefix(80))\" uses \(scheme); attachments are downloaded only over https")
            return nil
        }
        guard let host = components.host, !host.isEmpty else {
            state.problem(.invalidURL, path, "\"\(string.prefix(80))\" has no host")
            return nil
        }
        return url
    }
}
