//! Task ids (UPIDs) of PVE and PBS.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::AuthId;
use crate::Error;

/// The parts of a UPID.
///
/// PVE (`PVE::UPID::encode`): `UPID:{node}:{pid:08X}:{pstart:08X}:{starttime:08X}:{type}:{id}:{user}:`.
/// PBS (proxmox-backup's `UPID`, schema pattern in `pbs-apidoc.json`) adds a task counter:
/// `UPID:{node}:{pid:08X}:{pstart:08X}:{task_id:08X}:{starttime:08X}:{type}:{id}:{authid}:`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct UpidParts {
    /// The node that runs the task.
    pub node: String,
    /// The Unix pid of the worker.
    pub pid: u32,
    /// The worker's process start time (from `/proc/PID/stat`).
    pub pstart: u64,
    /// The per-process task counter: present in PBS UPIDs only.
    pub task_id: Option<u64>,
    /// The task start time (Unix epoch seconds).
    pub starttime: u64,
    /// The worker type (`qmstart`, `vzsnapshot`, `garbage_collection`, …).
    pub worker_type: String,
    /// The worker id (a VM id, a datastore name; may be empty). PBS writes it
    /// systemd-escaped (`\x2d`), kept here as written.
    pub worker_id: String,
    /// Who started the task: `user@realm`, or `user@realm!token` for an API token.
    pub user: String,
}

impl UpidParts {
    /// Parts for a PVE UPID, which has no task counter ([`UpidParts::with_task_id`] adds the
    /// one of a PBS UPID).
    pub fn pve(
        node: impl Into<String>,
        pid: u32,
        pstart: u64,
        starttime: u64,
        worker_type: impl Into<String>,
        worker_id: impl Into<String>,
        user: impl Into<String>,
    ) -> Self {
        UpidParts {
            node: node.into(),
            pid,
            pstart,
            task_id: None,
            starttime,
            worker_type: worker_type.into(),
            worker_id: worker_id.into(),
            user: user.into(),
        }
    }

    /// The same parts with a task counter: the parts of a PBS UPID.
    pub fn with_task_id(self, task_id: u64) -> Self {
        UpidParts {
            task_id: Some(task_id),
            ..self
        }
    }
}

/// A Unique Process ID: the handle of a PVE or PBS task.
///
/// Parsing keeps the text exactly as the server wrote it (the server finds the task log by that
/// text), so `upid.to_string()` always gives back the input.
///
/// ```
/// use cpps_proxmox_family::Upid;
///
/// let upid: Upid = "UPID:pve1:000A1B2C:0123ABCD:6650F00D:qmstart:100:root@pam!ci:".parse()?;
/// assert_eq!(upid.node(), "pve1");
/// assert_eq!(upid.worker_type(), "qmstart");
/// assert_eq!(upid.worker_id(), "100");
/// assert_eq!(upid.user(), "root@pam!ci");
/// assert_eq!(upid.task_id(), None);
/// assert_eq!(upid.to_string(), "UPID:pve1:000A1B2C:0123ABCD:6650F00D:qmstart:100:root@pam!ci:");
///
/// let pbs: Upid = "UPID:pbs1:00004F37:0039E469:00000003:5CA78B83:garbage_collection:store1:root@pam:".parse()?;
/// assert_eq!(pbs.task_id(), Some(3));
/// # Ok::<(), cpps_proxmox_family::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Upid {
    raw: String,
    parts: UpidParts,
}

fn hex_field(text: &str, name: &str, max_digits: usize, all: &str) -> Result<u64, Error> {
    if text.is_empty() || text.len() > max_digits || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::invalid(
            "UPID",
            all,
            format!("{name} must be 1 to {max_digits} hexadecimal digits, got `{text}`"),
        ));
    }
    u64::from_str_radix(text, 16)
        .map_err(|_| Error::invalid("UPID", all, format!("{name} `{text}` is out of range")))
}

fn valid_node(node: &str) -> bool {
    // `[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?`
    !node.is_empty()
        && node.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !node.starts_with('-')
        && !node.ends_with('-')
}

fn no_space(text: &str) -> bool {
    !text.contains(':') && !text.chars().any(char::is_whitespace)
}

impl Upid {
    /// Parses a PVE or PBS UPID (told apart by the number of fields).
    pub fn parse(text: &str) -> Result<Self, Error> {
        let body = text
            .strip_prefix("UPID:")
            .ok_or_else(|| Error::invalid("UPID", text, "must start with `UPID:`"))?;
        let body = body
            .strip_suffix(':')
            .ok_or_else(|| Error::invalid("UPID", text, "must end with `:`"))?;
        let fields: Vec<&str> = body.split(':').collect();
        let (node, pid, pstart, task_id, starttime, wtype, wid, user) = match fields.as_slice() {
            [node, pid, pstart, starttime, wtype, wid, user] => {
                (*node, *pid, *pstart, None, *starttime, *wtype, *wid, *user)
            }
            [node, pid, pstart, task_id, starttime, wtype, wid, user] => (
                *node,
                *pid,
                *pstart,
                Some(*task_id),
                *starttime,
                *wtype,
                *wid,
                *user,
            ),
            _ => {
                return Err(Error::invalid(
                    "UPID",
                    text,
                    format!(
                        "expected 7 (PVE) or 8 (PBS) fields between `UPID:` and the final `:`, got {}",
                        fields.len()
                    ),
                ));
            }
        };
        if !valid_node(node) {
            return Err(Error::invalid(
                "UPID",
                text,
                format!("`{node}` is not a node name"),
            ));
        }
        let pid = u32::try_from(hex_field(pid, "pid", 8, text)?)
            .map_err(|_| Error::invalid("UPID", text, "pid out of range"))?;
        let pstart = hex_field(pstart, "pstart", 16, text)?;
        let task_id = task_id
            .map(|t| hex_field(t, "task id", 16, text))
            .transpose()?;
        let starttime = hex_field(starttime, "starttime", 16, text)?;
        if wtype.is_empty() || !no_space(wtype) {
            return Err(Error::invalid(
                "UPID",
                text,
                "the worker type must be non-empty and without spaces",
            ));
        }
        if !no_space(wid) {
            return Err(Error::invalid(
                "UPID",
                text,
                "the worker id must not contain spaces",
            ));
        }
        if user.is_empty() || !no_space(user) || !user.contains('@') {
            return Err(Error::invalid(
                "UPID",
                text,
                "the user must be `user@realm` or `user@realm!token`",
            ));
        }
        Ok(Upid {
            raw: text.to_owned(),
            parts: UpidParts {
                node: node.to_owned(),
                pid,
                pstart,
                task_id,
                starttime,
                worker_type: wtype.to_owned(),
                worker_id: wid.to_owned(),
                user: user.to_owned(),
            },
        })
    }

    /// Builds a UPID from parts, written the way PVE and PBS write them (upper-case hex,
    /// at least 8 digits). Fails when a part could not be parsed back.
    pub fn from_parts(parts: UpidParts) -> Result<Self, Error> {
        let mut raw = format!(
            "UPID:{}:{:08X}:{:08X}:",
            parts.node, parts.pid, parts.pstart
        );
        if let Some(task_id) = parts.task_id {
            raw.push_str(&format!("{task_id:08X}:"));
        }
        raw.push_str(&format!(
            "{:08X}:{}:{}:{}:",
            parts.starttime, parts.worker_type, parts.worker_id, parts.user
        ));
        let parsed = Upid::parse(&raw)?;
        if parsed.parts != parts {
            return Err(Error::invalid(
                "UPID",
                &raw,
                "a part contains `:` or does not read back as written",
            ));
        }
        Ok(parsed)
    }

    /// The text, exactly as parsed.
    pub fn as_str(&self) -> &str {
        &self.raw
    }

    /// All parts.
    pub fn parts(&self) -> &UpidParts {
        &self.parts
    }

    /// The node that runs the task (the node to ask for its status).
    pub fn node(&self) -> &str {
        &self.parts.node
    }

    /// The worker's pid.
    pub fn pid(&self) -> u32 {
        self.parts.pid
    }

    /// The worker's process start time.
    pub fn pstart(&self) -> u64 {
        self.parts.pstart
    }

    /// The PBS task counter (`None` for PVE UPIDs).
    pub fn task_id(&self) -> Option<u64> {
        self.parts.task_id
    }

    /// Start time, Unix epoch seconds.
    pub fn starttime(&self) -> u64 {
        self.parts.starttime
    }

    /// Worker type (`qmstart`, `vzsnapshot`, …).
    pub fn worker_type(&self) -> &str {
        &self.parts.worker_type
    }

    /// Worker id (often the VM id; may be empty).
    pub fn worker_id(&self) -> &str {
        &self.parts.worker_id
    }

    /// Who started the task, as written (`root@pam`, `root@pam!ci`).
    pub fn user(&self) -> &str {
        &self.parts.user
    }

    /// Who started the task, typed; `None` if the server wrote something unexpected.
    pub fn auth_id(&self) -> Option<AuthId> {
        self.parts.user.parse().ok()
    }

    /// The path `nodes/{node}/tasks/{upid}` (both segments percent-encoded) under which PVE and
    /// PBS serve the task's `status` and `log`.
    pub fn task_path(&self) -> String {
        format!(
            "nodes/{}/tasks/{}",
            cpps_http::encode_segment(self.node()),
            cpps_http::encode_segment(self.as_str())
        )
    }
}

impl FromStr for Upid {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        Upid::parse(s)
    }
}

impl fmt::Display for Upid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

impl fmt::Debug for Upid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Upid({})", self.raw)
    }
}

impl Serialize for Upid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.raw)
    }
}

impl<'de> Deserialize<'de> for Upid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Upid::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pve_upid_round_trips() {
        let text = "UPID:pve-ippri-31:0001E240:00ABCDEF:66A1B2C3:vzsnapshot:201:ops@pve!runbook:";
        let upid: Upid = text.parse().unwrap();
        assert_eq!(upid.pid(), 0x1E240);
        assert_eq!(upid.pstart(), 0xABCDEF);
        assert_eq!(upid.starttime(), 0x66A1B2C3);
        assert!(matches!(upid.auth_id(), Some(AuthId::Token(_))));
        assert_eq!(upid.to_string(), text);
        let again = Upid::from_parts(upid.parts().clone()).unwrap();
        assert_eq!(again, upid);
        assert_eq!(
            upid.task_path(),
            "nodes/pve-ippri-31/tasks/UPID%3Apve-ippri-31%3A0001E240%3A00ABCDEF%3A66A1B2C3%3Avzsnapshot%3A201%3Aops%40pve%21runbook%3A"
        );
    }

    #[test]
    fn pbs_upid_has_a_task_id() {
        let text = "UPID:elsa:00004F37:0039E469:00000000:5CA78B83:garbage_collection::root@pam:";
        let upid: Upid = text.parse().unwrap();
        assert_eq!(upid.task_id(), Some(0));
        assert_eq!(upid.worker_id(), "");
        assert_eq!(upid.worker_type(), "garbage_collection");
        assert_eq!(upid.to_string(), text);
    }

    #[test]
    fn bad_upids_name_the_problem() {
        for (text, needle) in [
            ("UPXD:a:1:1:1:t::u@pam:", "UPID:"),
            ("UPID:a:1:1:1:t::u@pam", "end with"),
            ("UPID:a:zz:1:1:t::u@pam:", "pid"),
            ("UPID:a:1:1:t::u@pam:", "fields"),
            ("UPID:-a:1:1:1:t::u@pam:", "node"),
            ("UPID:a:1:1:1:t::nobody:", "user"),
        ] {
            let err = Upid::parse(text).unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }
}
