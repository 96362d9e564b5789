//! The server's version, read once from `GET /version` and kept by the client, so that calls
//! whose parameters or endpoints differ between releases choose per version.

use std::fmt;

use crate::Error;

/// A Proxmox VE or Backup Server release, `major.minor.patch`.
///
/// PVE's `GET /version` answers `{"version": "9.0.10", "release": "9.0", …}`; PBS's answers
/// `{"version": "3.2", "release": "4", …}` (proxmox-backup `src/api2/version.rs` and
/// `pbs-buildcfg/src/lib.rs`: `PROXMOX_PKG_VERSION` is `MAJOR.MINOR`, `PROXMOX_PKG_RELEASE` the
/// patch level), so the two are read by [`ServerVersion::from_pve`] and
/// [`ServerVersion::from_pbs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ServerVersion {
    /// The major release (`8`, `9` for PVE; `3`, `4` for PBS).
    pub major: u32,
    /// The minor release.
    pub minor: u32,
    /// The patch level.
    pub patch: u32,
}

fn number(text: &str, whole: &str) -> Result<u32, Error> {
    // Packaging suffixes (`9.0.10~rc1`) end the number.
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    digits
        .parse()
        .map_err(|_| Error::invalid("server version", whole, "expected MAJOR.MINOR[.PATCH]"))
}

impl ServerVersion {
    /// A version from its parts.
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        ServerVersion {
            major,
            minor,
            patch,
        }
    }

    /// Reads PVE's `version` member (`9.0.10`, `8.4.1`; a missing patch is 0).
    pub fn from_pve(version: &str) -> Result<Self, Error> {
        let mut parts = version.trim().split('.');
        let major = number(parts.next().unwrap_or(""), version)?;
        let minor = number(parts.next().unwrap_or(""), version)?;
        let patch = match parts.next() {
            Some(p) => number(p, version)?,
            None => 0,
        };
        Ok(ServerVersion::new(major, minor, patch))
    }

    /// Reads PBS's `version` (`3.2`) and `release` (`4`) members.
    pub fn from_pbs(version: &str, release: &str) -> Result<Self, Error> {
        let base = ServerVersion::from_pve(version)?;
        let patch = if base.patch == 0 && !release.trim().is_empty() {
            number(release.trim(), release)?
        } else {
            base.patch
        };
        Ok(ServerVersion { patch, ..base })
    }

    /// Whether this release is `major.minor.patch` or newer.
    pub fn at_least(&self, major: u32, minor: u32, patch: u32) -> bool {
        *self >= ServerVersion::new(major, minor, patch)
    }
}

impl fmt::Display for ServerVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_layouts_read() {
        assert_eq!(
            ServerVersion::from_pve("9.0.10").unwrap(),
            ServerVersion::new(9, 0, 10)
        );
        assert_eq!(
            ServerVersion::from_pve("8.4").unwrap(),
            ServerVersion::new(8, 4, 0)
        );
        assert_eq!(
            ServerVersion::from_pbs("3.2", "4").unwrap(),
            ServerVersion::new(3, 2, 4)
        );
        assert!(
            ServerVersion::from_pbs("3.3", "0")
                .unwrap()
                .at_least(3, 3, 0)
        );
        assert!(
            !ServerVersion::from_pbs("3.2", "7")
                .unwrap()
                .at_least(3, 3, 0)
        );
        assert!(ServerVersion::from_pve("nine").is_err());
        assert_eq!(ServerVersion::new(9, 1, 2).to_string(), "9.1.2");
    }
}
