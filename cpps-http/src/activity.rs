//! What a client is waiting for: the requests in flight and the last few that got no answer,
//! so that a caller whose own time limit ran out can say what it was waiting for instead of
//! only that it ran out of time.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How many requests that ended without an answer are remembered.
const UNANSWERED_KEPT: usize = 8;

/// A shared record of the requests of one or more clients ([`crate::ClientBuilder::activity`]):
/// clients built with clones of one `Activity` report into it together, as the controllers of
/// one LINSTOR client do. Cheap to clone.
#[derive(Clone, Default)]
pub struct Activity {
    log: Arc<Mutex<Log>>,
}

#[derive(Default)]
struct Log {
    next_id: u64,
    /// `(id, "METHOD URL", since)`, oldest first.
    in_flight: Vec<(u64, String, Instant)>,
    /// `"METHOD URL: why"`, oldest first.
    unanswered: VecDeque<String>,
}

impl Activity {
    fn with_log<R>(&self, f: impl FnOnce(&mut Log) -> R) -> R {
        // A panic while the log was held leaves it consistent: every change is one push or
        // removal.
        f(&mut self.log.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Records `request` (`METHOD URL`, no credentials) as in flight until the guard drops.
    pub(crate) fn start(&self, request: String) -> InFlight {
        let id = self.with_log(|log| {
            log.next_id += 1;
            log.in_flight.push((log.next_id, request, Instant::now()));
            log.next_id
        });
        InFlight {
            activity: self.clone(),
            id,
            finished: false,
        }
    }

    /// Records that `request` ended with no answer, and why (`why` alone when it names the
    /// request already, as the client's errors do).
    pub(crate) fn unanswered(&self, request: &str, why: &str) {
        let url = request.split_once(' ').map_or(request, |(_, url)| url);
        let entry = match why.contains(url) {
            true => why.to_owned(),
            false => format!("{request}: {why}"),
        };
        self.with_log(|log| {
            if log.unanswered.len() == UNANSWERED_KEPT {
                log.unanswered.pop_front();
            }
            log.unanswered.push_back(entry);
        });
    }

    /// What the clients are doing now.
    pub fn snapshot(&self) -> ActivitySnapshot {
        self.with_log(|log| ActivitySnapshot {
            waiting: log
                .in_flight
                .iter()
                .map(|(_, request, since)| (request.clone(), since.elapsed()))
                .collect(),
            unanswered: log.unanswered.iter().cloned().collect(),
        })
    }
}

impl fmt::Debug for Activity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Activity").field(&self.snapshot()).finish()
    }
}

/// A request in flight; dropping it removes it. Dropped before [`InFlight::finish`] (its
/// caller stopped waiting: a time limit of its own ran out), it is recorded as unanswered.
pub(crate) struct InFlight {
    activity: Activity,
    id: u64,
    finished: bool,
}

impl InFlight {
    /// The request ended (with an answer or an error of its own).
    pub(crate) fn finish(mut self) {
        self.finished = true;
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let (id, finished) = (self.id, self.finished);
        let cut = self.activity.with_log(|log| {
            let at = log
                .in_flight
                .iter()
                .position(|(other, _, _)| *other == id)?;
            let (_, request, since) = log.in_flight.remove(at);
            (!finished).then(|| (request, since.elapsed()))
        });
        if let Some((request, waited)) = cut {
            let why = format!(
                "no answer after {:.1} s, when the caller stopped waiting",
                waited.as_secs_f64()
            );
            self.activity.unanswered(&request, &why);
        }
    }
}

/// The requests in flight at one moment, and the last few that got no answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActivitySnapshot {
    /// Each request in flight (`METHOD URL`) and how long it has waited, oldest first.
    pub waiting: Vec<(String, Duration)>,
    /// The last requests that ended without an answer (`METHOD URL: why`), oldest first.
    pub unanswered: Vec<String>,
}

impl fmt::Display for ActivitySnapshot {
    /// `waiting for GET https://…/v1/nodes (12.0 s); earlier without an answer: …`, or
    /// `no request in flight` when there is nothing to tell.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let waiting: Vec<String> = self
            .waiting
            .iter()
            .map(|(request, waited)| format!("{request} ({:.1} s)", waited.as_secs_f64()))
            .collect();
        match waiting.is_empty() {
            true => f.write_str("no request in flight")?,
            false => write!(f, "waiting for {}", waiting.join(", "))?,
        }
        if !self.unanswered.is_empty() {
            write!(
                f,
                "; earlier without an answer: {}",
                self.unanswered.join("; ")
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_dropped_before_it_finished_was_cut_off() {
        let activity = Activity::default();
        activity
            .start("GET http://127.0.0.1:1/api2/json/nodes".to_owned())
            .finish();
        drop(activity.start("GET http://127.0.0.1:1/api2/json/cluster/ha/resources".to_owned()));
        let now = activity.snapshot();
        assert!(now.waiting.is_empty());
        assert_eq!(now.unanswered.len(), 1, "{now:?}");
        assert!(
            now.unanswered[0].starts_with(
                "GET http://127.0.0.1:1/api2/json/cluster/ha/resources: no answer after "
            ),
            "{now:?}"
        );
    }

    #[test]
    fn a_request_is_waiting_until_its_guard_drops_and_unanswered_ones_are_kept_in_order() {
        let activity = Activity::default();
        let first = activity.start("GET http://127.0.0.1:1/v1/nodes".to_owned());
        let second = activity.start("GET http://127.0.0.1:2/v1/nodes".to_owned());
        first.finish();
        let now = activity.snapshot();
        assert_eq!(now.waiting.len(), 1);
        assert_eq!(now.waiting[0].0, "GET http://127.0.0.1:2/v1/nodes");
        second.finish();
        for i in 0..10 {
            activity.unanswered(&format!("GET http://127.0.0.1:{i}/"), "connection refused");
        }
        let now = activity.snapshot();
        assert!(now.waiting.is_empty());
        assert_eq!(now.unanswered.len(), UNANSWERED_KEPT);
        assert_eq!(
            now.unanswered[0],
            "GET http://127.0.0.1:2/: connection refused"
        );
        assert!(
            now.to_string()
                .starts_with("no request in flight; earlier without an answer: GET http://127.0.0.1:2/: connection refused; ")
        );
    }
}
