import Hummingbird

/// The request context of the server's routes.
public struct AuthRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    /// The wire protocol's body limit (1 MiB).
    public var maxUploadSize: Int { 1 << 20 }
}
