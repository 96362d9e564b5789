//! PVE property strings (`virtio=AA:BB:…,bridge=vmbr0,firewall=1`), generic and typed.
//!
//! Syntax, from `PVE::JSONSchema::parse_property_string`: parts separated by `,`; a part
//! `key=value` (value non-empty), or at most one part without `=`, which is the value of the
//! format's default key (`file` of a disk, `volume` of a mount point, `current` of PVE 9
//! `memory`). Empty parts are ignored. `print_property_string` writes the default key's value
//! first, then the other keys sorted by name, which is the form the typed printers here
//! produce: so a string written by PVE prints back identically, and any string prints back to
//! one that parses to the same value.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::str::FromStr;

use crate::Error;
use crate::family::de::parse_bool;

/// A property string as parts, in the order written; unknown keys are kept.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PropertyString {
    /// The value of the part without `=` (the default key), if any.
    pub default: Option<String>,
    /// The `key=value` parts, in order.
    pub entries: Vec<(String, String)>,
}

impl PropertyString {
    /// Parses a property string. Errors name the offending part.
    ///
    /// Linear in the length of `text`: duplicate keys are found through a hash set of the
    /// keys seen so far (30 000 keys parse in milliseconds; `cargo bench -p cpps-proxmox
    /// --bench property` measures it).
    pub fn parse(text: &str) -> Result<Self, Error> {
        let parts = text.bytes().filter(|&b| b == b',').count() + 1;
        let mut out = PropertyString {
            default: None,
            entries: Vec::with_capacity(parts),
        };
        let mut seen: HashSet<&str> = HashSet::with_capacity(parts);
        for part in text.split(',') {
            if part.trim().is_empty() {
                continue;
            }
            match part.split_once('=') {
                Some((key, value)) => {
                    if key.is_empty() {
                        return Err(Error::invalid(
                            "property string",
                            text,
                            format!("part `{part}` has no key before `=`"),
                        ));
                    }
                    if value.is_empty() {
                        return Err(Error::invalid(
                            "property string",
                            text,
                            format!("key `{key}` has an empty value"),
                        ));
                    }
                    if !seen.insert(key) {
                        return Err(Error::invalid(
                            "property string",
                            text,
                            format!("duplicate key `{key}`"),
                        ));
                    }
                    out.entries.push((key.to_owned(), value.to_owned()));
                }
                None => {
                    if out.default.is_some() {
                        return Err(Error::invalid(
                            "property string",
                            text,
                            format!("more than one part without a key (`{part}`)"),
                        ));
                    }
                    out.default = Some(part.to_owned());
                }
            }
        }
        Ok(out)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Removes `key` and returns its value.
    fn take(&mut self, key: &str) -> Option<String> {
        let index = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(index).1)
    }

    fn into_extra(self) -> BTreeMap<String, String> {
        self.entries.into_iter().collect()
    }
}

impl FromStr for PropertyString {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        PropertyString::parse(s)
    }
}

impl fmt::Display for PropertyString {
    /// Writes the parts in the order held.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        if let Some(default) = &self.default {
            f.write_str(default)?;
            first = false;
        }
        for (k, v) in &self.entries {
            if !first {
                f.write_str(",")?;
            }
            first = false;
            write!(f, "{k}={v}")?;
        }
        Ok(())
    }
}

/// Writes the default value, then `key=value` pairs sorted by key (PVE's canonical order).
fn print_canonical(
    f: &mut fmt::Formatter<'_>,
    default: Option<&str>,
    pairs: BTreeMap<&str, String>,
) -> fmt::Result {
    let mut first = true;
    if let Some(default) = default {
        f.write_str(default)?;
        first = false;
    }
    for (k, v) in pairs {
        if !first {
            f.write_str(",")?;
        }
        first = false;
        write!(f, "{k}={v}")?;
    }
    Ok(())
}

fn take_bool(
    ps: &mut PropertyString,
    key: &str,
    kind: &'static str,
) -> Result<Option<bool>, Error> {
    match ps.take(key) {
        None => Ok(None),
        Some(v) => parse_bool(&v)
            .map(Some)
            .ok_or_else(|| Error::invalid(kind, &v, format!("`{key}` must be 0 or 1"))),
    }
}

fn take_num<T: FromStr>(
    ps: &mut PropertyString,
    key: &str,
    kind: &'static str,
) -> Result<Option<T>, Error> {
    match ps.take(key) {
        None => Ok(None),
        Some(v) => v
            .parse()
            .map(Some)
            .map_err(|_| Error::invalid(kind, &v, format!("`{key}` must be a number"))),
    }
}

fn put_bool(pairs: &mut BTreeMap<&'static str, String>, key: &'static str, value: Option<bool>) {
    if let Some(b) = value {
        pairs.insert(key, if b { "1" } else { "0" }.to_owned());
    }
}

fn put<T: ToString>(
    pairs: &mut BTreeMap<&'static str, String>,
    key: &'static str,
    value: &Option<T>,
) {
    if let Some(v) = value {
        pairs.insert(key, v.to_string());
    }
}

fn with_extra<'a>(
    mut pairs: BTreeMap<&'a str, String>,
    extra: &'a BTreeMap<String, String>,
) -> BTreeMap<&'a str, String> {
    for (k, v) in extra {
        pairs.insert(k.as_str(), v.clone());
    }
    pairs
}

/// The NIC models a QEMU `netN` accepts as a key (`virtio=MAC`), from pve-apidoc.json `net[n]`.
pub const QEMU_NIC_MODELS: &[&str] = &[
    "e1000",
    "e1000-82540em",
    "e1000-82544gc",
    "e1000-82545em",
    "e1000e",
    "i82551",
    "i82557b",
    "i82559er",
    "ne2k_isa",
    "ne2k_pci",
    "pcnet",
    "rtl8139",
    "virtio",
    "vmxnet3",
];

/// A QEMU network device, `netN` (`virtio=BC:24:11:00:00:01,bridge=vmbr0,firewall=1,tag=20`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct QemuNet {
    /// The NIC model (`virtio`, `e1000`, …).
    pub model: String,
    /// The MAC address.
    pub macaddr: Option<String>,
    /// The bridge.
    pub bridge: Option<String>,
    /// Whether the firewall applies.
    pub firewall: Option<bool>,
    /// VLAN tag.
    pub tag: Option<u16>,
    /// Whether the link is down.
    pub link_down: Option<bool>,
    /// MTU.
    pub mtu: Option<u32>,
    /// Other keys (`rate`, `queues`, `trunks`, and any added later), kept as written.
    pub extra: BTreeMap<String, String>,
}

impl QemuNet {
    /// The keys this type reads (besides the model keys); checked against pve-apidoc.json.
    pub const KEYS: &'static [&'static str] = &[
        "model",
        "macaddr",
        "bridge",
        "firewall",
        "tag",
        "link_down",
        "mtu",
    ];
}

impl FromStr for QemuNet {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self, Error> {
        const KIND: &str = "QEMU net device";
        let mut ps = PropertyString::parse(text)?;
        if let Some(d) = &ps.default {
            return Err(Error::invalid(
                KIND,
                text,
                format!("unexpected part `{d}` without a key"),
            ));
        }
        let mut model = ps.take("model");
        let mut macaddr = ps.take("macaddr");
        if let Some(index) = ps
            .entries
            .iter()
            .position(|(k, _)| QEMU_NIC_MODELS.contains(&k.as_str()))
        {
            let (m, mac) = ps.entries.remove(index);
            if model.is_some() || macaddr.is_some() {
                return Err(Error::invalid(KIND, text, "model given twice"));
            }
            model = Some(m);
            macaddr = Some(mac);
        }
        let model =
            model.ok_or_else(|| Error::invalid(KIND, text, "no NIC model (`virtio=MAC`)"))?;
        Ok(QemuNet {
            model,
            macaddr,
            bridge: ps.take("bridge"),
            firewall: take_bool(&mut ps, "firewall", KIND)?,
            tag: take_num(&mut ps, "tag", KIND)?,
            link_down: take_bool(&mut ps, "link_down", KIND)?,
            mtu: take_num(&mut ps, "mtu", KIND)?,
            extra: ps.into_extra(),
        })
    }
}

impl fmt::Display for QemuNet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let head = match &self.macaddr {
            Some(mac) => format!("{}={mac}", self.model),
            None => format!("model={}", self.model),
        };
        let mut pairs = BTreeMap::new();
        put(&mut pairs, "bridge", &self.bridge);
        put_bool(&mut pairs, "firewall", self.firewall);
        put(&mut pairs, "tag", &self.tag);
        put_bool(&mut pairs, "link_down", self.link_down);
        put(&mut pairs, "mtu", &self.mtu);
        print_canonical(f, Some(&head), with_extra(pairs, &self.extra))
    }
}

/// A container network interface, `netN` (`name=eth0,bridge=vmbr0,hwaddr=…,ip=dhcp,type=veth`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct LxcNet {
    /// Interface name inside the container.
    pub name: Option<String>,
    /// The bridge.
    pub bridge: Option<String>,
    /// MAC address.
    pub hwaddr: Option<String>,
    /// IPv4 address with prefix, `dhcp` or `manual`.
    pub ip: Option<String>,
    /// IPv6 address with prefix, `auto`, `dhcp` or `manual`.
    pub ip6: Option<String>,
    /// IPv4 gateway.
    pub gw: Option<String>,
    /// IPv6 gateway.
    pub gw6: Option<String>,
    /// Whether the firewall applies.
    pub firewall: Option<bool>,
    /// VLAN tag.
    pub tag: Option<u16>,
    /// Interface type (`veth`).
    pub kind: Option<String>,
    /// MTU.
    pub mtu: Option<u32>,
    /// Other keys, kept as written.
    pub extra: BTreeMap<String, String>,
}

impl LxcNet {
    /// The keys this type reads; checked against pve-apidoc.json.
    pub const KEYS: &'static [&'static str] = &[
        "name", "bridge", "hwaddr", "ip", "ip6", "gw", "gw6", "firewall", "tag", "type", "mtu",
    ];
}

impl FromStr for LxcNet {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self, Error> {
        const KIND: &str = "container net device";
        let mut ps = PropertyString::parse(text)?;
        if let Some(d) = &ps.default {
            return Err(Error::invalid(
                KIND,
                text,
                format!("unexpected part `{d}` without a key"),
            ));
        }
        Ok(LxcNet {
            name: ps.take("name"),
            bridge: ps.take("bridge"),
            hwaddr: ps.take("hwaddr"),
            ip: ps.take("ip"),
            ip6: ps.take("ip6"),
            gw: ps.take("gw"),
            gw6: ps.take("gw6"),
            firewall: take_bool(&mut ps, "firewall", KIND)?,
            tag: take_num(&mut ps, "tag", KIND)?,
            kind: ps.take("type"),
            mtu: take_num(&mut ps, "mtu", KIND)?,
            extra: ps.into_extra(),
        })
    }
}

impl fmt::Display for LxcNet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut pairs = BTreeMap::new();
        put(&mut pairs, "name", &self.name);
        put(&mut pairs, "bridge", &self.bridge);
        put(&mut pairs, "hwaddr", &self.hwaddr);
        put(&mut pairs, "ip", &self.ip);
        put(&mut pairs, "ip6", &self.ip6);
        put(&mut pairs, "gw", &self.gw);
        put(&mut pairs, "gw6", &self.gw6);
        put_bool(&mut pairs, "firewall", self.firewall);
        put(&mut pairs, "tag", &self.tag);
        put(&mut pairs, "type", &self.kind);
        put(&mut pairs, "mtu", &self.mtu);
        print_canonical(f, None, with_extra(pairs, &self.extra))
    }
}

/// A volume: a QEMU disk (`scsi0: local-lvm:vm-100-disk-0,iothread=1,size=32G`), a container
/// `rootfs` (`local-lvm:vm-200-disk-0,size=8G`) or mount point `mpN`
/// (`local-lvm:vm-200-disk-1,mp=/srv,backup=1,size=16G`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Volume {
    /// The volume (`storage:name`, a path, `none`, or `cdrom`): the default key (`file` for
    /// QEMU, `volume` for containers).
    pub volume: String,
    /// Size as written (`8G`, `512M`, `1T`).
    pub size: Option<String>,
    /// Mount path inside the container (`mpN` only).
    pub mp: Option<String>,
    /// `cdrom` or `disk` (QEMU).
    pub media: Option<String>,
    /// Whether backups include it.
    pub backup: Option<bool>,
    /// Other keys, kept as written.
    pub extra: BTreeMap<String, String>,
}

impl Volume {
    /// The keys this type reads (besides the default key); checked against pve-apidoc.json
    /// (`media` exists for QEMU disks, `mp` for container mount points).
    pub const KEYS: &'static [&'static str] = &["size", "mp", "media", "backup"];

    /// The size in bytes, from `size` (`K`, `M`, `G`, `T` suffixes, powers of 1024; bare
    /// numbers are bytes).
    pub fn size_bytes(&self) -> Option<u64> {
        let size = self.size.as_deref()?.trim();
        let (number, unit) = match size.char_indices().last()? {
            (i, c) if c.is_ascii_alphabetic() => (&size[..i], c.to_ascii_uppercase()),
            _ => (size, 'B'),
        };
        let factor: u64 = match unit {
            'B' => 1,
            'K' => 1 << 10,
            'M' => 1 << 20,
            'G' => 1 << 30,
            'T' => 1 << 40,
            _ => return None,
        };
        let value: f64 = number.parse().ok()?;
        (value >= 0.0).then_some((value * factor as f64) as u64)
    }

    /// The storage id of `storage:name` volumes.
    pub fn storage(&self) -> Option<&str> {
        let (storage, _) = self.volume.split_once(':')?;
        (!storage.starts_with('/')).then_some(storage)
    }
}

impl FromStr for Volume {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self, Error> {
        const KIND: &str = "volume";
        let mut ps = PropertyString::parse(text)?;
        let volume = match ps.default.take() {
            Some(v) => v,
            None => ps
                .take("file")
                .or_else(|| ps.take("volume"))
                .ok_or_else(|| Error::invalid(KIND, text, "no volume"))?,
        };
        Ok(Volume {
            volume,
            size: ps.take("size"),
            mp: ps.take("mp"),
            media: ps.take("media"),
            backup: take_bool(&mut ps, "backup", KIND)?,
            extra: ps.into_extra(),
        })
    }
}

impl fmt::Display for Volume {
    /// Writes the volume as the leading part without a key, as PVE prints it, unless the
    /// volume text itself holds a `=` (`file==` parses to the volume `=`): a part without a
    /// key cannot hold one, so it is written `file=…` instead, which parses back to the same
    /// value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut pairs = BTreeMap::new();
        put(&mut pairs, "size", &self.size);
        put(&mut pairs, "mp", &self.mp);
        put(&mut pairs, "media", &self.media);
        put_bool(&mut pairs, "backup", self.backup);
        if self.volume.contains('=') || self.volume.trim().is_empty() {
            let mut pairs = with_extra(pairs, &self.extra);
            pairs.insert("file", self.volume.clone());
            print_canonical(f, None, pairs)
        } else {
            print_canonical(f, Some(&self.volume), with_extra(pairs, &self.extra))
        }
    }
}

/// Container `features` (`nesting=1,keyctl=1`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct LxcFeatures {
    /// Nested containers (and Docker).
    pub nesting: Option<bool>,
    /// `keyctl()` for unprivileged containers.
    pub keyctl: Option<bool>,
    /// FUSE mounts.
    pub fuse: Option<bool>,
    /// `mknod()`.
    pub mknod: Option<bool>,
    /// Allowed file-system types for `mount` (`nfs;cifs`).
    pub mount: Option<String>,
    /// `/sys` mounted `rw`.
    pub force_rw_sys: Option<bool>,
    /// Other keys, kept as written.
    pub extra: BTreeMap<String, String>,
}

impl LxcFeatures {
    /// The keys this type reads; checked against pve-apidoc.json.
    pub const KEYS: &'static [&'static str] = &[
        "nesting",
        "keyctl",
        "fuse",
        "mknod",
        "mount",
        "force_rw_sys",
    ];
}

impl FromStr for LxcFeatures {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self, Error> {
        const KIND: &str = "container features";
        let mut ps = PropertyString::parse(text)?;
        if let Some(d) = &ps.default {
            return Err(Error::invalid(
                KIND,
                text,
                format!("unexpected part `{d}` without a key"),
            ));
        }
        Ok(LxcFeatures {
            nesting: take_bool(&mut ps, "nesting", KIND)?,
            keyctl: take_bool(&mut ps, "keyctl", KIND)?,
            fuse: take_bool(&mut ps, "fuse", KIND)?,
            mknod: take_bool(&mut ps, "mknod", KIND)?,
            mount: ps.take("mount"),
            force_rw_sys: take_bool(&mut ps, "force_rw_sys", KIND)?,
            extra: ps.into_extra(),
        })
    }
}

impl fmt::Display for LxcFeatures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut pairs = BTreeMap::new();
        put_bool(&mut pairs, "nesting", self.nesting);
        put_bool(&mut pairs, "keyctl", self.keyctl);
        put_bool(&mut pairs, "fuse", self.fuse);
        put_bool(&mut pairs, "mknod", self.mknod);
        put(&mut pairs, "mount", &self.mount);
        put_bool(&mut pairs, "force_rw_sys", self.force_rw_sys);
        print_canonical(f, None, with_extra(pairs, &self.extra))
    }
}

/// QEMU `memory`: a plain number of MiB before PVE 9, a property string with default key
/// `current` since (`4096` or `current=4096`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct QemuMemory {
    /// RAM in MiB.
    pub current: Option<u64>,
    /// Other keys, kept as written.
    pub extra: BTreeMap<String, String>,
}

impl QemuMemory {
    /// The keys this type reads; checked against pve-apidoc.json.
    pub const KEYS: &'static [&'static str] = &["current"];

    /// RAM in bytes.
    pub fn bytes(&self) -> Option<u64> {
        self.current.map(|m| m.saturating_mul(1 << 20))
    }
}

impl FromStr for QemuMemory {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self, Error> {
        const KIND: &str = "QEMU memory";
        let mut ps = PropertyString::parse(text)?;
        let explicit = take_num::<u64>(&mut ps, "current", KIND)?;
        let current =
            match ps.default.take() {
                Some(d) => {
                    if explicit.is_some() {
                        return Err(Error::invalid(KIND, text, "`current` given twice"));
                    }
                    Some(d.trim().parse().map_err(|_| {
                        Error::invalid(KIND, text, "memory must be a number of MiB")
                    })?)
                }
                None => explicit,
            };
        Ok(QemuMemory {
            current,
            extra: ps.into_extra(),
        })
    }
}

impl fmt::Display for QemuMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let current = self.current.map(|c| c.to_string());
        print_canonical(
            f,
            current.as_deref(),
            with_extra(BTreeMap::new(), &self.extra),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qemu_net_parses_and_prints() {
        let text = "virtio=BC:24:11:AA:BB:CC,bridge=vmbr0,firewall=1,queues=4,tag=20";
        let net: QemuNet = text.parse().unwrap();
        assert_eq!(net.model, "virtio");
        assert_eq!(net.macaddr.as_deref(), Some("BC:24:11:AA:BB:CC"));
        assert_eq!(net.bridge.as_deref(), Some("vmbr0"));
        assert_eq!(net.firewall, Some(true));
        assert_eq!(net.tag, Some(20));
        assert_eq!(net.extra.get("queues").map(String::as_str), Some("4"));
        assert_eq!(net.to_string(), text);
    }

    #[test]
    fn volumes_parse_sizes() {
        let rootfs: Volume = "local-lvm:vm-200-disk-0,size=8G".parse().unwrap();
        assert_eq!(rootfs.storage(), Some("local-lvm"));
        assert_eq!(rootfs.size_bytes(), Some(8 << 30));
        assert_eq!(rootfs.to_string(), "local-lvm:vm-200-disk-0,size=8G");
        let mp: Volume = "local-lvm:vm-200-disk-1,backup=1,mp=/srv,size=512M"
            .parse()
            .unwrap();
        assert_eq!(mp.mp.as_deref(), Some("/srv"));
        assert_eq!(mp.size_bytes(), Some(512 << 20));
        assert_eq!(
            mp.to_string(),
            "local-lvm:vm-200-disk-1,backup=1,mp=/srv,size=512M"
        );
        let explicit: Volume = "file=local:iso/debian.iso,media=cdrom".parse().unwrap();
        assert_eq!(explicit.volume, "local:iso/debian.iso");
    }

    #[test]
    fn features_and_memory() {
        let f: LxcFeatures = "keyctl=1,nesting=1".parse().unwrap();
        assert_eq!(f.nesting, Some(true));
        assert_eq!(f.keyctl, Some(true));
        assert_eq!(f.to_string(), "keyctl=1,nesting=1");
        let m: QemuMemory = "4096".parse().unwrap();
        assert_eq!(m.current, Some(4096));
        let m: QemuMemory = "current=2048".parse().unwrap();
        assert_eq!(m.bytes(), Some(2048 << 20));
        assert_eq!(m.to_string(), "2048");
    }

    #[test]
    fn bad_strings_are_errors() {
        assert!(PropertyString::parse("a,b").is_err());
        assert!(PropertyString::parse("=x").is_err());
        assert!(PropertyString::parse("k=").is_err());
        assert!(PropertyString::parse("k=1,k=2").is_err());
        assert!("bridge=vmbr0".parse::<QemuNet>().is_err());
        assert!("virtio=AA,firewall=maybe".parse::<QemuNet>().is_err());
        assert!("x".parse::<QemuMemory>().is_err());
    }
}
