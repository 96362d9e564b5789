//! Jittered exponential back-off for requests that are safe to repeat.

use std::time::Duration;

/// When and how often a request that is safe to repeat is tried again.
///
/// Only requests marked idempotent (GET, HEAD, OPTIONS by default) are retried, and only after a
/// connection failure, a timeout or a 429/502/503/504 answer. The wait before attempt `n + 1` is
/// drawn uniformly from `[0, min(max_backoff, initial_backoff * 2^(n-1))]` ("full jitter"), or is
/// the server's `Retry-After` when it gives one, capped likewise; the call's overall deadline
/// bounds everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Total attempts, the first included (1 disables retries).
    pub max_attempts: u32,
    /// Upper bound of the first wait.
    pub initial_backoff: Duration,
    /// Upper bound of any wait.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 4,
            initial_backoff: Duration::from_millis(200),
            max_backoff: Duration::from_secs(5),
        }
    }
}

impl RetryPolicy {
    /// A policy that never retries.
    pub fn none() -> Self {
        RetryPolicy {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// The upper bound of the wait after failed attempt `attempt` (1-based).
    pub fn backoff_cap(&self, attempt: u32) -> Duration {
        let exponent = attempt.saturating_sub(1).min(20);
        self.initial_backoff
            .saturating_mul(1u32 << exponent)
            .min(self.max_backoff)
    }

    /// A jittered wait after failed attempt `attempt` (1-based).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let cap = self.backoff_cap(attempt);
        let nanos = u64::try_from(cap.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(fastrand::u64(0..=nanos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_exponentially_up_to_the_cap() {
        let policy = RetryPolicy {
            max_attempts: 10,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(700),
        };
        assert_eq!(policy.backoff_cap(1), Duration::from_millis(100));
        assert_eq!(policy.backoff_cap(2), Duration::from_millis(200));
        assert_eq!(policy.backoff_cap(3), Duration::from_millis(400));
        assert_eq!(policy.backoff_cap(4), Duration::from_millis(700));
        assert_eq!(policy.backoff_cap(60), Duration::from_millis(700));
        for attempt in 1..8 {
            assert!(policy.backoff(attempt) <= policy.backoff_cap(attempt));
        }
    }
}
