//! Guests: lists, current status, configurations and snapshots.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::family::de;
use crate::types::{LxcFeatures, LxcNet, QemuMemory, QemuNet, VmId, Volume};

cpps_http::named_enum! {
    /// QEMU VM or container.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum GuestKind {
        /// A QEMU/KVM virtual machine (`/nodes/{node}/qemu/{vmid}`).
        Qemu => "qemu",
        /// An LXC container (`/nodes/{node}/lxc/{vmid}`).
        Lxc => "lxc",
    }
}

cpps_http::named_enum! {
    /// A guest's run state.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum GuestStatus {
        /// Running.
        Running => "running",
        /// Stopped.
        Stopped => "stopped",
        /// Paused (QEMU `qmpstatus`).
        Paused => "paused",
        _ => Unknown(String),
    }
    impl JsonSchema;
}

/// One entry of `GET /nodes/{node}/qemu`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct QemuListItem {
    /// The id.
    pub vmid: VmId,
    /// The name.
    #[serde(default, deserialize_with = "de::opt_string")]
    pub name: Option<String>,
    /// `running` or `stopped`.
    pub status: GuestStatus,
    /// QMP status (`running`, `paused`, `prelaunch`, …), with `full=1` or on newer PVE.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qmpstatus: Option<String>,
    /// CPUs.
    #[serde(default, deserialize_with = "de::opt_f64")]
    pub cpus: Option<f64>,
    /// Memory, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub maxmem: Option<u64>,
    /// Memory used, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub mem: Option<u64>,
    /// Boot disk size, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub maxdisk: Option<u64>,
    /// Uptime, seconds.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub uptime: Option<u64>,
    /// Whether it is a template.
    #[serde(default, deserialize_with = "de::opt_bool")]
    pub template: Option<bool>,
    /// Lock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock: Option<String>,
    /// Tags, `;`-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<String>,
}

/// One entry of `GET /nodes/{node}/lxc`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LxcListItem {
    /// The id.
    pub vmid: VmId,
    /// The host name.
    #[serde(default, deserialize_with = "de::opt_string")]
    pub name: Option<String>,
    /// `running` or `stopped`.
    pub status: GuestStatus,
    /// CPUs.
    #[serde(default, deserialize_with = "de::opt_f64")]
    pub cpus: Option<f64>,
    /// Memory, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub maxmem: Option<u64>,
    /// Memory used, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub mem: Option<u64>,
    /// Root disk size, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub maxdisk: Option<u64>,
    /// Swap, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub maxswap: Option<u64>,
    /// Uptime, seconds.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub uptime: Option<u64>,
    /// Whether it is a template.
    #[serde(default, deserialize_with = "de::opt_bool")]
    pub template: Option<bool>,
    /// Lock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock: Option<String>,
    /// Tags, `;`-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<String>,
}

/// `GET /nodes/{node}/{qemu|lxc}/{vmid}/status/current`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GuestCurrentStatus {
    /// The id.
    pub vmid: VmId,
    /// `running` or `stopped`.
    pub status: GuestStatus,
    /// The name.
    #[serde(default, deserialize_with = "de::opt_string")]
    pub name: Option<String>,
    /// QMP status (QEMU only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qmpstatus: Option<String>,
    /// HA state (`{"managed": 0}` or `{"managed": 1, "state": "started", …}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ha: Option<serde_json::Value>,
    /// Uptime, seconds.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub uptime: Option<u64>,
    /// CPUs.
    #[serde(default, deserialize_with = "de::opt_f64")]
    pub cpus: Option<f64>,
    /// Memory, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub maxmem: Option<u64>,
    /// Lock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock: Option<String>,
}

impl GuestCurrentStatus {
    /// Whether the HA manager manages the guest (`ha.managed`).
    pub fn ha_managed(&self) -> bool {
        self.ha
            .as_ref()
            .and_then(|ha| ha.get("managed"))
            .and_then(|m| m.as_u64().or_else(|| m.as_bool().map(u64::from)))
            .is_some_and(|m| m == 1)
    }
}

/// One entry of `GET /nodes/{node}/{qemu|lxc}/{vmid}/snapshot`. The list includes a pseudo
/// snapshot `current` (the running state, with `parent` naming the newest snapshot).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Snapshot {
    /// The name (`current` for the running state).
    pub name: String,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The parent snapshot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Creation time (Unix epoch seconds).
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub snaptime: Option<u64>,
    /// Whether RAM was saved (QEMU).
    #[serde(default, deserialize_with = "de::opt_bool")]
    pub vmstate: Option<bool>,
}

impl Snapshot {
    /// Whether this is the `current` pseudo snapshot.
    pub fn is_current(&self) -> bool {
        self.name == "current"
    }
}

/// A guest configuration as sent: every key kept in order, values as JSON scalars.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Config(pub IndexMap<String, serde_json::Value>);

impl Config {
    /// `digest`: the SHA-1 of the configuration file as read, to send back with a change
    /// ([`crate::api::ConfigUpdate::on_digest`]) so that a concurrent change is refused.
    pub fn digest(&self) -> Option<String> {
        self.get_str("digest")
    }

    /// The value of `key` as text (numbers written out).
    pub fn get_str(&self, key: &str) -> Option<String> {
        match self.0.get(key)? {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Null => None,
            other => Some(other.to_string()),
        }
    }

    fn get_u64(&self, key: &str) -> Result<Option<u64>, Error> {
        self.get_number(key, "a whole number")
    }

    fn get_f64(&self, key: &str) -> Result<Option<f64>, Error> {
        self.get_number(key, "a number")
    }

    /// The value of `key` as a `T`, or an error saying it must be `what`.
    fn get_number<T: std::str::FromStr>(&self, key: &str, what: &str) -> Result<Option<T>, Error> {
        match self.get_str(key) {
            None => Ok(None),
            Some(v) => v.trim().parse().map(Some).map_err(|_| {
                Error::invalid("configuration value", &v, format!("`{key}` must be {what}"))
            }),
        }
    }

    fn get_bool(&self, key: &str) -> Result<Option<bool>, Error> {
        match self.get_str(key) {
            None => Ok(None),
            Some(v) => de::parse_bool(&v).map(Some).ok_or_else(|| {
                Error::invalid("configuration value", &v, format!("`{key}` must be 0 or 1"))
            }),
        }
    }

    /// Entries `PREFIXn` (`net0`, `mp3`), by index, parsed with `T::from_str`.
    fn indexed<T: std::str::FromStr<Err = Error>>(
        &self,
        prefix: &str,
    ) -> Result<BTreeMap<u32, T>, Error> {
        let mut out = BTreeMap::new();
        for key in self.0.keys() {
            let Some(rest) = key.strip_prefix(prefix) else {
                continue;
            };
            let Ok(index) = rest.parse::<u32>() else {
                continue;
            };
            if rest.starts_with('+') || (rest.len() > 1 && rest.starts_with('0')) {
                continue;
            }
            let text = self.get_str(key).unwrap_or_default();
            let value = text.parse::<T>().map_err(|e| match e {
                Error::Invalid {
                    kind,
                    input,
                    reason,
                } => Error::Invalid {
                    kind,
                    input,
                    reason: format!("{key}: {reason}"),
                },
                other => other,
            })?;
            out.insert(index, value);
        }
        Ok(out)
    }

    /// Tags (`tags`, `;`- or `,`-separated).
    pub fn tags(&self) -> Vec<String> {
        self.get_str("tags")
            .map(|t| {
                t.split([';', ',', ' '])
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The accessors of keys QEMU and container configurations share, with the same meaning and
/// default in pve-apidoc.json: `onboot`, `template`, `lock` and `tags`.
macro_rules! guest_config_accessors {
    () => {
        /// `onboot` (default off).
        pub fn onboot(&self) -> Result<bool, Error> {
            Ok(self.raw.get_bool("onboot")?.unwrap_or(false))
        }

        /// `template` (default off).
        pub fn template(&self) -> Result<bool, Error> {
            Ok(self.raw.get_bool("template")?.unwrap_or(false))
        }

        /// `lock`.
        pub fn lock(&self) -> Option<String> {
            self.raw.get_str("lock")
        }

        /// Tags.
        pub fn tags(&self) -> Vec<String> {
            self.raw.tags()
        }
    };
}

/// Disk keys of a QEMU configuration (`ide[n]`, `sata[n]`, `scsi[n]`, `virtio[n]`, and the
/// single `efidisk0` and `tpmstate0`).
const QEMU_DISK_PREFIXES: &[&str] = &["ide", "sata", "scsi", "virtio"];

/// `GET /nodes/{node}/qemu/{vmid}/config`: typed accessors over the full key map.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct QemuConfig {
    /// Every key, as sent.
    pub raw: Config,
}

impl QemuConfig {
    /// The top-level keys the accessors read; checked against pve-apidoc.json (`[n]` stands
    /// for an index).
    pub const KEYS: &'static [&'static str] = &[
        "name",
        "memory",
        "cores",
        "sockets",
        "onboot",
        "tags",
        "template",
        "net[n]",
        "ide[n]",
        "sata[n]",
        "scsi[n]",
        "virtio[n]",
        "efidisk0",
        "tpmstate0",
        "lock",
        "digest",
    ];

    /// `name`.
    pub fn name(&self) -> Option<String> {
        self.raw.get_str("name")
    }

    /// `memory` (MiB, or PVE 9's property string).
    pub fn memory(&self) -> Result<Option<QemuMemory>, Error> {
        self.raw.get_str("memory").map(|m| m.parse()).transpose()
    }

    /// `cores` (default 1).
    pub fn cores(&self) -> Result<u64, Error> {
        Ok(self.raw.get_u64("cores")?.unwrap_or(1))
    }

    /// `sockets` (default 1).
    pub fn sockets(&self) -> Result<u64, Error> {
        Ok(self.raw.get_u64("sockets")?.unwrap_or(1))
    }

    guest_config_accessors!();

    /// `netN`.
    pub fn nets(&self) -> Result<BTreeMap<u32, QemuNet>, Error> {
        self.raw.indexed("net")
    }

    /// Disks (`ideN`, `sataN`, `scsiN`, `virtioN`, `efidisk0`, `tpmstate0`) by key, CD-ROMs
    /// included (`media=cdrom`).
    pub fn disks(&self) -> Result<BTreeMap<String, Volume>, Error> {
        let mut out = BTreeMap::new();
        for prefix in QEMU_DISK_PREFIXES {
            for (index, volume) in self.raw.indexed::<Volume>(prefix)? {
                out.insert(format!("{prefix}{index}"), volume);
            }
        }
        for key in ["efidisk0", "tpmstate0"] {
            if let Some(text) = self.raw.get_str(key) {
                out.insert(key.to_owned(), text.parse()?);
            }
        }
        Ok(out)
    }
}

/// Whether a container maps its root to the host's root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Privilege {
    /// `unprivileged` absent or 0: container root is host root.
    Privileged,
    /// `unprivileged: 1`: user namespaces map container root to an unprivileged host uid.
    Unprivileged,
}

/// `GET /nodes/{node}/lxc/{vmid}/config`: typed accessors over the full key map.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LxcConfig {
    /// Every key, as sent.
    pub raw: Config,
}

impl LxcConfig {
    /// The top-level keys the accessors read; checked against pve-apidoc.json.
    pub const KEYS: &'static [&'static str] = &[
        "hostname",
        "memory",
        "swap",
        "cores",
        "onboot",
        "tags",
        "template",
        "unprivileged",
        "features",
        "rootfs",
        "mp[n]",
        "net[n]",
        "ostype",
        "lock",
        "digest",
    ];

    /// `hostname`.
    pub fn hostname(&self) -> Option<String> {
        self.raw.get_str("hostname")
    }

    /// `unprivileged` as PVE reads it: absent or 0 means privileged (pve-apidoc.json:
    /// `unprivileged`, default 0; only *creation* defaults to 1).
    pub fn privilege(&self) -> Result<Privilege, Error> {
        Ok(match self.raw.get_bool("unprivileged")? {
            Some(true) => Privilege::Unprivileged,
            Some(false) | None => Privilege::Privileged,
        })
    }

    /// Whether the container is privileged.
    pub fn is_privileged(&self) -> Result<bool, Error> {
        Ok(self.privilege()? == Privilege::Privileged)
    }

    /// `memory` in MiB (default 512).
    pub fn memory(&self) -> Result<u64, Error> {
        Ok(self.raw.get_u64("memory")?.unwrap_or(512))
    }

    /// `swap` in MiB (default 512).
    pub fn swap(&self) -> Result<u64, Error> {
        Ok(self.raw.get_u64("swap")?.unwrap_or(512))
    }

    /// `cores` (unlimited when absent).
    pub fn cores(&self) -> Result<Option<f64>, Error> {
        self.raw.get_f64("cores")
    }

    guest_config_accessors!();

    /// `ostype`.
    pub fn ostype(&self) -> Option<String> {
        self.raw.get_str("ostype")
    }

    /// `features`.
    pub fn features(&self) -> Result<Option<LxcFeatures>, Error> {
        self.raw.get_str("features").map(|f| f.parse()).transpose()
    }

    /// `rootfs`.
    pub fn rootfs(&self) -> Result<Option<Volume>, Error> {
        self.raw.get_str("rootfs").map(|f| f.parse()).transpose()
    }

    /// Mount points `mpN`.
    pub fn mount_points(&self) -> Result<BTreeMap<u32, Volume>, Error> {
        self.raw.indexed("mp")
    }

    /// `netN`.
    pub fn nets(&self) -> Result<BTreeMap<u32, LxcNet>, Error> {
        self.raw.indexed("net")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lxc(json: &str) -> LxcConfig {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn privilege_follows_pve_defaults() {
        assert_eq!(
            lxc(r#"{"hostname":"ct"}"#).privilege().unwrap(),
            Privilege::Privileged
        );
        assert_eq!(
            lxc(r#"{"unprivileged":0}"#).privilege().unwrap(),
            Privilege::Privileged
        );
        assert_eq!(
            lxc(r#"{"unprivileged":1}"#).privilege().unwrap(),
            Privilege::Unprivileged
        );
        assert_eq!(
            lxc(r#"{"unprivileged":"1"}"#).privilege().unwrap(),
            Privilege::Unprivileged
        );
        assert!(lxc(r#"{"unprivileged":"x"}"#).privilege().is_err());
    }

    #[test]
    fn lxc_accessors_parse_property_strings() {
        let c = lxc(
            r#"{"hostname":"ct1","rootfs":"local-lvm:vm-200-disk-0,size=8G","mp0":"local-lvm:vm-200-disk-1,mp=/srv,size=4G",
                "net0":"name=eth0,bridge=vmbr0,hwaddr=BC:24:11:00:00:02,ip=dhcp,type=veth","features":"nesting=1","memory":1024}"#,
        );
        assert_eq!(c.hostname().as_deref(), Some("ct1"));
        assert_eq!(c.rootfs().unwrap().unwrap().size_bytes(), Some(8 << 30));
        assert_eq!(c.mount_points().unwrap()[&0].mp.as_deref(), Some("/srv"));
        assert_eq!(c.nets().unwrap()[&0].bridge.as_deref(), Some("vmbr0"));
        assert_eq!(c.features().unwrap().unwrap().nesting, Some(true));
        assert_eq!(c.memory().unwrap(), 1024);
    }

    #[test]
    fn qemu_accessors() {
        let c: QemuConfig = serde_json::from_str(
            r#"{"name":"vm1","memory":"4096","cores":2,"net0":"virtio=BC:24:11:00:00:01,bridge=vmbr0","net1":"e1000=BC:24:11:00:00:03,bridge=vmbr1,tag=5",
                "scsi0":"local-lvm:vm-100-disk-0,iothread=1,size=32G","ide2":"none,media=cdrom","digest":"abc","unknownkey":"kept"}"#,
        )
        .unwrap();
        assert_eq!(c.name().as_deref(), Some("vm1"));
        assert_eq!(c.memory().unwrap().unwrap().current, Some(4096));
        assert_eq!(c.cores().unwrap(), 2);
        let nets = c.nets().unwrap();
        assert_eq!(nets.len(), 2);
        assert_eq!(nets[&1].tag, Some(5));
        let disks = c.disks().unwrap();
        assert_eq!(disks["scsi0"].size_bytes(), Some(32 << 30));
        assert_eq!(disks["ide2"].media.as_deref(), Some("cdrom"));
        assert_eq!(c.raw.get_str("unknownkey").as_deref(), Some("kept"));
        let bad: QemuConfig = serde_json::from_str(r#"{"net0":"bridge=vmbr0"}"#).unwrap();
        let err = bad.nets().unwrap_err().to_string();
        assert!(err.contains("net0"), "{err}");
    }
}

/// One entry of `GET /nodes/{node}/{qemu|lxc}/{vmid}/pending`: a configuration key with its
/// current value and the change waiting to be applied (at the next start, or when hot-plugged).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingEntry {
    /// The configuration key (`memory`, `net0`, …).
    pub key: String,
    /// The current value, absent for a key only the pending change adds.
    #[serde(default, deserialize_with = "crate::family::de::opt_string")]
    pub value: Option<String>,
    /// The pending value, absent when nothing is pending for the key.
    #[serde(default, deserialize_with = "crate::family::de::opt_string")]
    pub pending: Option<String>,
    /// A pending removal of the key: 1, or 2 for a forced one (absent or 0: none).
    #[serde(default, deserialize_with = "crate::family::de::opt_integer")]
    pub delete: Option<u32>,
}

impl PendingEntry {
    /// Whether the key has a change waiting (a new value or a removal).
    pub fn is_pending(&self) -> bool {
        self.pending.is_some() || self.delete.is_some_and(|d| d > 0)
    }
}
