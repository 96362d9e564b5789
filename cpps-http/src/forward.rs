//! The transport setters every service crate's builder forwards to [`ClientBuilder`].
//!
//! [`ClientBuilder`]: crate::ClientBuilder

/// Generates, inside a service crate's `impl ClientBuilder { … }`, the transport setters of
/// [`ClientBuilder`](crate::ClientBuilder), each forwarding to a field named `http` of type
/// `cpps_http::ClientBuilder`: `tls`, `client_identity`, `connect_timeout`, `request_timeout`,
/// `deadline`, `max_response_bytes`, `activity`, `retry`, `user_agent`, `pool_idle_timeout`,
/// `pool_max_idle_per_host`, and `http_settings` for anything else. Written once here, so that
/// the four REST clients are configured in the same words.
///
/// ```
/// pub struct ClientBuilder {
///     http: cpps_http::ClientBuilder,
/// }
///
/// impl ClientBuilder {
///     cpps_http::forward_http_settings!();
/// }
///
/// let builder = ClientBuilder { http: cpps_http::ClientBuilder::default() }
///     .deadline(std::time::Duration::from_secs(10))
///     .tls(cpps_http::TlsMode::danger_accept_invalid_certs());
/// let http = builder.http.base_url("https://127.0.0.1:8006/".parse()?).build()?;
/// assert_eq!(http.deadline(), std::time::Duration::from_secs(10));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[macro_export]
macro_rules! forward_http_settings {
    () => {
        /// How the server's certificate is verified (default: the system's roots); see
        /// `cpps_http::TlsMode`. The insecure mode exists only by its long name.
        pub fn tls(mut self, tls: $crate::TlsMode) -> Self {
            self.http = self.http.tls(tls);
            self
        }

        /// A client certificate to present (mutual TLS).
        pub fn client_identity(mut self, identity: $crate::ClientIdentity) -> Self {
            self.http = self.http.client_identity(identity);
            self
        }

        /// Time allowed to establish a connection, TLS included.
        pub fn connect_timeout(mut self, timeout: ::std::time::Duration) -> Self {
            self.http = self.http.connect_timeout(timeout);
            self
        }

        /// Time allowed for one attempt, from sending to the end of the body.
        pub fn request_timeout(mut self, timeout: ::std::time::Duration) -> Self {
            self.http = self.http.request_timeout(timeout);
            self
        }

        /// Time allowed for one call, all attempts and back-off included: a binary's
        /// `--timeout` passes through here.
        pub fn deadline(mut self, deadline: ::std::time::Duration) -> Self {
            self.http = self.http.deadline(deadline);
            self
        }

        /// Largest response body accepted, in bytes (list calls may set their own cap).
        pub fn max_response_bytes(mut self, bytes: usize) -> Self {
            self.http = self.http.max_response_bytes(bytes);
            self
        }

        /// Where the client records what it is waiting for (`cpps_http::Activity`), so that a
        /// caller whose own time limit runs out can name the requests left unanswered.
        pub fn activity(mut self, activity: $crate::Activity) -> Self {
            self.http = self.http.activity(activity);
            self
        }

        /// The retry policy for requests that are safe to repeat.
        pub fn retry(mut self, retry: $crate::RetryPolicy) -> Self {
            self.http = self.http.retry(retry);
            self
        }

        /// The `User-Agent` header (default `cpps/<version>`).
        pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
            self.http = self.http.user_agent(user_agent);
            self
        }

        /// How long an idle pooled connection is kept.
        pub fn pool_idle_timeout(mut self, timeout: ::std::time::Duration) -> Self {
            self.http = self.http.pool_idle_timeout(timeout);
            self
        }

        /// How many idle connections per host the pool keeps.
        pub fn pool_max_idle_per_host(mut self, count: usize) -> Self {
            self.http = self.http.pool_max_idle_per_host(count);
            self
        }

        /// Changes any other setting of the underlying `cpps_http::ClientBuilder`.
        pub fn http_settings(
            mut self,
            configure: impl FnOnce($crate::ClientBuilder) -> $crate::ClientBuilder,
        ) -> Self {
            self.http = configure(self.http);
            self
        }
    };
}
