/// What chose the subject the crops are centred on (`probe.subjectStrategy`).
public enum SubjectStrategy: String, Codable, Sendable, Equatable, CaseIterable {
    /// Faces were found (profile `crop: smart`): the crops hold them.
    case faces
    /// libvips' attention (saliency): `crop: attention`, or `smart` when no face was found.
    case attention
    /// The region with most entropy (`crop: entropy`).
    case entropy
    /// The centre of the image (`crop: centre`).
    case centre
}
