//! Connections opened ahead of the requests that will use them ([`HttpClient::preconnect`]).
//!
//! reqwest's pool opens a connection when a request finds none idle, so a fan-out of N requests
//! after a list round pays its TCP and TLS handshakes after the list answered. To open them
//! while the list is in flight, a second reqwest client (the *opener*) shares the connector
//! configuration; its connector layer ([`SparesLayer`] in the [`SpareRole::Open`] role) starts each connect in the background,
//! keeps the connection as a *spare* and fails the opener's request at once, so the opener never
//! sends anything. The main client's connector layer ([`SpareRole::Take`]) hands a spare (or one still
//! being opened) to the next connect the pool asks for, before opening a new one.
//!
//! [`HttpClient::preconnect`]: crate::HttpClient::preconnect

use std::any::Any;
use std::collections::VecDeque;
use std::fmt::Debug;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::time::Instant;
use tower_layer::Layer;
use tower_service::Service;

use crate::BoxError;

/// A connection of the connector's own (unnameable) type.
type Spare = Box<dyn Any + Send>;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// The spare connections of one client, shared by its two connector layers.
#[derive(Clone)]
pub(crate) struct Spares {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// How the client's first connect ended.
    first_connect: tokio::sync::watch::Sender<FirstConnect>,
    /// A spare older than this is closed, not handed out: the server may have closed it.
    max_age: Duration,
    /// The opener's connects are not under reqwest's connect timeout (they outlive its
    /// request), so they have their own.
    connect_timeout: Duration,
}

#[derive(Default)]
struct State {
    /// The destination the spares lead to, as the connector names it (scheme and authority).
    destination: Option<String>,
    /// Established spares, oldest first.
    ready: VecDeque<(Instant, Spare)>,
    /// Spares being opened.
    opening: usize,
    /// Connects of the main client waiting for a spare being opened.
    waiting: VecDeque<oneshot::Sender<Spare>>,
    /// Spares opened since the client was built (established or not).
    started: usize,
}

/// How a client's first connect (TCP and TLS handshakes) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FirstConnect {
    NotYet,
    Established(Duration),
    Failed,
}

/// Times one connect; one given up before it ended (reqwest's connect timeout drops it)
/// counts as failed.
struct Timing {
    spares: Spares,
    started: Instant,
    ended: bool,
}

impl Timing {
    fn end(&mut self, established: bool) {
        self.ended = true;
        self.spares
            .record(established.then(|| self.started.elapsed()));
    }
}

impl Drop for Timing {
    fn drop(&mut self) {
        if !self.ended {
            self.spares.record(None);
        }
    }
}

/// What [`Spares::claim`] found for a connect of the main client.
enum Claim {
    Ready(Spare),
    Wait(oneshot::Receiver<Spare>),
    None,
}

impl Spares {
    pub(crate) fn new(max_age: Duration, connect_timeout: Duration) -> Self {
        Spares {
            shared: Arc::new(Shared {
                state: Mutex::default(),
                first_connect: tokio::sync::watch::Sender::new(FirstConnect::NotYet),
                max_age,
                connect_timeout,
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The state stays consistent at every unlock, so a panic elsewhere does not spoil it.
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Spares established or being opened and not handed out yet.
    pub(crate) fn available(&self) -> usize {
        let mut state = self.state();
        state.prune(self.shared.max_age);
        let waiting = state.waiting.len();
        state.ready.len() + state.opening.saturating_sub(waiting)
    }

    /// Spares started since the client was built.
    pub(crate) fn started(&self) -> usize {
        self.state().started
    }

    /// Records how a connect ended, if it is the client's first.
    fn record(&self, established: Option<Duration>) {
        self.shared.first_connect.send_if_modified(|first| {
            if *first != FirstConnect::NotYet {
                return false;
            }
            *first = established.map_or(FirstConnect::Failed, FirstConnect::Established);
            true
        });
    }

    /// How long the client's first connect took; `None` when it failed. Waits for it.
    pub(crate) async fn first_connect(&self) -> Option<Duration> {
        let mut receiver = self.shared.first_connect.subscribe();
        let seen = receiver
            .wait_for(|first| *first != FirstConnect::NotYet)
            .await
            .map(|first| *first);
        match seen {
            Ok(FirstConnect::Established(took)) => Some(took),
            _ => None,
        }
    }

    /// Whether the client's first connect was established within `near`; false while it has
    /// not ended, and when it failed.
    pub(crate) fn first_connect_within(&self, near: Duration) -> bool {
        matches!(
            *self.shared.first_connect.borrow(),
            FirstConnect::Established(took) if took <= near
        )
    }

    /// A connect of the inner service, timed for [`Spares::first_connect`].
    fn timed<F, C>(&self, connect: F) -> impl Future<Output = Result<C, BoxError>> + Send + 'static
    where
        F: Future<Output = Result<C, BoxError>> + Send + 'static,
    {
        let timing = Timing {
            spares: self.clone(),
            started: Instant::now(),
            ended: false,
        };
        async move {
            let mut timing = timing;
            let result = connect.await;
            timing.end(result.is_ok());
            result
        }
    }

    fn claim(&self, destination: &str) -> Claim {
        let mut state = self.state();
        if state.destination.as_deref() != Some(destination) {
            return Claim::None;
        }
        state.prune(self.shared.max_age);
        if let Some((_, spare)) = state.ready.pop_front() {
            return Claim::Ready(spare);
        }
        if state.opening > state.waiting.len() {
            let (send, receive) = oneshot::channel();
            state.waiting.push_back(send);
            return Claim::Wait(receive);
        }
        Claim::None
    }

    /// Registers a spare about to be opened to `destination`; false for another destination
    /// than the spares' one (a client opens spares only to its base URL's server).
    fn begin(&self, destination: String) -> bool {
        let mut state = self.state();
        match &state.destination {
            Some(known) if *known != destination => return false,
            Some(_) => {}
            None => state.destination = Some(destination),
        }
        state.opening += 1;
        state.started += 1;
        true
    }

    /// A spare is established (`Some`) or could not be.
    fn finish(&self, spare: Option<Spare>) {
        let mut state = self.state();
        state.opening = state.opening.saturating_sub(1);
        match spare {
            Some(mut spare) => {
                while let Some(waiter) = state.waiting.pop_front() {
                    match waiter.send(spare) {
                        Ok(()) => return,
                        // That connect was given up (another connection became idle first).
                        Err(back) => spare = back,
                    }
                }
                state.ready.push_back((Instant::now(), spare));
            }
            None => {
                // One waiter fewer can be served: it opens its own connection (dropping its
                // sender tells it so).
                state.waiting.retain(|w| !w.is_closed());
                if state.waiting.len() > state.opening {
                    state.waiting.pop_back();
                }
            }
        }
    }
}

impl State {
    fn prune(&mut self, max_age: Duration) {
        self.ready.retain(|(at, _)| at.elapsed() < max_age);
        self.waiting.retain(|w| !w.is_closed());
    }
}

/// What a client's connector layer does with the spares.
#[derive(Clone, Copy)]
pub(crate) enum SpareRole {
    /// The main client's: a connect takes a spare when there is one.
    Take,
    /// The opener's: a connect is started in the background as a spare, and the opener's
    /// request fails at once without a connection, so it is never sent.
    Open,
}

/// A client's connector layer over the shared spares, in one [`SpareRole`].
#[derive(Clone)]
pub(crate) struct SparesLayer {
    pub(crate) spares: Spares,
    pub(crate) role: SpareRole,
}

impl<S> Layer<S> for SparesLayer {
    type Service = SparesService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        SparesService {
            inner,
            spares: self.spares.clone(),
            role: self.role,
        }
    }
}

#[derive(Clone)]
pub(crate) struct SparesService<S> {
    inner: S,
    spares: Spares,
    role: SpareRole,
}

/// The opener's requests end with this error, by design.
pub(crate) const OPENED_AS_SPARE: &str = "connection opened as a spare";

/// The connector below a [`SparesLayer`], as both of its roles call it: a service that can be
/// moved into a spawned task, with a future and a connection that can be too.
trait Connector<R>:
    Service<R, Error = BoxError, Future: Send + 'static, Response: Send + 'static> + Send + 'static
{
}

impl<S, R> Connector<R> for S
where
    S: Service<R, Error = BoxError> + Send + 'static,
    S::Future: Send + 'static,
    S::Response: Send + 'static,
{
}

impl<S, R> Service<R> for SparesService<S>
where
    S: Connector<R> + Clone,
    R: Debug + Send + 'static,
{
    type Response = S::Response;
    type Error = BoxError;
    type Future = BoxFuture<Result<S::Response, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, destination: R) -> Self::Future {
        // The service that was polled ready makes the call; its clone stays for the next.
        let clone = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, clone);
        match self.role {
            SpareRole::Take => take_spare(inner, &self.spares, destination),
            SpareRole::Open => open_spare(inner, self.spares.clone(), destination),
        }
    }
}

/// The main client's connect: a spare of this destination when there is one (or one being
/// opened, waited for), else a connection opened now.
fn take_spare<S: Connector<R>, R: Debug + Send + 'static>(
    mut inner: S,
    spares: &Spares,
    destination: R,
) -> BoxFuture<Result<S::Response, BoxError>> {
    match spares.claim(&format!("{destination:?}")) {
        Claim::Ready(spare) => match spare.downcast::<S::Response>() {
            Ok(connection) => Box::pin(async move { Ok(*connection) }),
            Err(_) => Box::pin(spares.timed(inner.call(destination))),
        },
        Claim::Wait(receive) => {
            let spares = spares.clone();
            Box::pin(async move {
                if let Ok(spare) = receive.await
                    && let Ok(connection) = spare.downcast::<S::Response>()
                {
                    return Ok(*connection);
                }
                // The spare could not be opened: open a connection now.
                std::future::poll_fn(|cx| inner.poll_ready(cx)).await?;
                spares.timed(inner.call(destination)).await
            })
        }
        Claim::None => Box::pin(spares.timed(inner.call(destination))),
    }
}

/// The opener's connect: opens a spare of this destination in the background (only to the
/// spares' own destination, [`Spares::begin`]) and fails with [`OPENED_AS_SPARE`].
fn open_spare<S: Connector<R>, R: Debug + Send + 'static>(
    mut inner: S,
    spares: Spares,
    destination: R,
) -> BoxFuture<Result<S::Response, BoxError>> {
    if spares.begin(format!("{destination:?}")) {
        let timeout = spares.shared.connect_timeout;
        let max_age = spares.shared.max_age;
        tokio::spawn(async move {
            let connect = spares.timed(inner.call(destination));
            let connected = tokio::time::timeout(timeout, connect).await;
            let spare = match connected {
                Ok(Ok(connection)) => Some(Box::new(connection) as Spare),
                Ok(Err(error)) => {
                    tracing::debug!(error = %crate::error_chain(&*error), "a spare connection could not be opened");
                    None
                }
                Err(_) => None,
            };
            spares.finish(spare);
            // Close it once too old, if nobody took it.
            tokio::time::sleep(max_age).await;
            spares.state().prune(max_age);
        });
    }
    Box::pin(async { Err(BoxError::from(OPENED_AS_SPARE)) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spares() -> Spares {
        Spares::new(Duration::from_secs(3), Duration::from_secs(5))
    }

    #[test]
    fn only_an_established_first_connect_within_the_time_counts_as_near() {
        let near = Duration::from_millis(5);
        let unknown = spares();
        assert!(!unknown.first_connect_within(near), "no connect has ended");

        let failed = spares();
        failed.record(None);
        assert!(!failed.first_connect_within(near));

        let fast = spares();
        fast.record(Some(Duration::from_millis(2)));
        // Only the first connect counts: a slower second one changes nothing.
        fast.record(Some(Duration::from_millis(40)));
        assert!(fast.first_connect_within(near));

        let slow = spares();
        slow.record(Some(Duration::from_millis(21)));
        slow.record(Some(Duration::from_millis(1)));
        assert!(!slow.first_connect_within(near));
    }
}
