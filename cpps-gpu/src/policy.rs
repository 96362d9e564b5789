//! The thresholds that this crate's checks and `cpps-topology`'s live rules share, so that one
//! fact gets one answer everywhere: certificate expiry (cert-manager Certificates, INGRESS-002)
//! and the pinned NVIDIA driver (`gpu-health --driver-version`, GPU-005).
//!
//! Both are plain `Copy` values with documented defaults; callers that want other answers set
//! the fields.

use crate::severity::Severity;

/// When a certificate's expiry is a finding.
///
/// cert-manager renews a certificate when two thirds of its life have passed (the
/// `renewBefore` default; 30 days before expiry for a 90-day Let's Encrypt certificate), so a
/// certificate that is still not renewed 14 days before it expires has been failing to renew for
/// over two weeks: a warning. Under 3 days nobody has time left to fix it calmly: critical, as is
/// an expired certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CertExpiryPolicy {
    /// Expiring in fewer than this many whole days is a warning (default 14).
    pub warning_days: i64,
    /// Expiring in fewer than this many whole days, or expired, is critical (default 3).
    pub critical_days: i64,
}

impl Default for CertExpiryPolicy {
    fn default() -> Self {
        Self {
            warning_days: 14,
            critical_days: 3,
        }
    }
}

/// A certificate expiry worth reporting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CertExpiry {
    /// How bad.
    pub severity: Severity,
    /// Whole days left (negative once expired).
    pub days_left: i64,
    /// The certificate has expired (its `notAfter` is now or past).
    pub expired: bool,
}

impl CertExpiryPolicy {
    /// The same policy with other thresholds.
    pub fn with_days(warning_days: i64, critical_days: i64) -> Self {
        Self {
            warning_days,
            critical_days,
        }
    }

    /// Judges a certificate valid until `not_after` at `now` (both Unix seconds); `None` when
    /// its expiry is not a finding.
    pub fn judge(&self, not_after: i64, now: i64) -> Option<CertExpiry> {
        let seconds_left = not_after - now;
        let days_left = seconds_left.div_euclid(86_400);
        let expired = seconds_left <= 0;
        let severity = if expired || days_left < self.critical_days {
            Severity::Critical
        } else if days_left < self.warning_days {
            Severity::Warning
        } else {
            return None;
        };
        Some(CertExpiry {
            severity,
            days_left,
            expired,
        })
    }
}

/// How a running NVIDIA driver that is not the pinned one is reported.
///
/// The ADR catalogue gives GPU-005 ("the observed NVIDIA driver version equals the version
/// pinned in the file") the severity *warning*: the GPUs still work, the runbook was bypassed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DriverPinPolicy {
    /// Another driver than the pinned one runs (default warning).
    pub mismatch: Severity,
    /// The running driver's version cannot be read (default warning).
    pub unreadable: Severity,
}

impl Default for DriverPinPolicy {
    fn default() -> Self {
        Self {
            mismatch: Severity::Warning,
            unreadable: Severity::Warning,
        }
    }
}

impl DriverPinPolicy {
    /// The same policy with a mismatch reported as `severity`.
    pub fn with_mismatch(mut self, severity: Severity) -> Self {
        self.mismatch = severity;
        self
    }

    /// Compares the running driver with the pin: `None` when they agree, else the severity.
    /// `running` is `None` when the version could not be read.
    pub fn judge(&self, running: Option<&str>, pinned: &str) -> Option<Severity> {
        match running {
            Some(v) if v == pinned => None,
            Some(_) => Some(self.mismatch),
            None => Some(self.unreadable),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;

    #[test]
    fn certificate_thresholds() {
        let p = CertExpiryPolicy::default();
        let now = 1_000_000_000;
        assert_eq!(p.judge(now + 30 * DAY, now), None);
        assert_eq!(p.judge(now + 14 * DAY, now), None);
        let w = p.judge(now + 14 * DAY - 1, now).unwrap();
        assert_eq!(
            (w.severity, w.days_left, w.expired),
            (Severity::Warning, 13, false)
        );
        let c = p.judge(now + 2 * DAY + 5, now).unwrap();
        assert_eq!(
            (c.severity, c.days_left, c.expired),
            (Severity::Critical, 2, false)
        );
        let e = p.judge(now, now).unwrap();
        assert_eq!((e.severity, e.expired), (Severity::Critical, true));
        let e = p.judge(now - DAY - 1, now).unwrap();
        assert_eq!(
            (e.severity, e.days_left, e.expired),
            (Severity::Critical, -2, true)
        );
        let strict = CertExpiryPolicy::with_days(30, 10);
        assert_eq!(
            strict.judge(now + 20 * DAY, now).map(|x| x.severity),
            Some(Severity::Warning)
        );
    }

    #[test]
    fn driver_pin() {
        let p = DriverPinPolicy::default();
        assert_eq!(p.judge(Some("550.54.15"), "550.54.15"), None);
        assert_eq!(
            p.judge(Some("550.90.07"), "550.54.15"),
            Some(Severity::Warning)
        );
        assert_eq!(p.judge(None, "550.54.15"), Some(Severity::Warning));
        assert_eq!(
            p.with_mismatch(Severity::Critical).judge(Some("1"), "2"),
            Some(Severity::Critical)
        );
    }
}
