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

/// The longest property string parsed: 64 KiB. A real one is well under a kilobyte (a NIC, a
/// disk or a mount point has about ten keys); a longer text is refused before it is read.
pub const MAX_PROPERTY_STRING: usize = 64 * 1024;

/// A property string as parts, in the order written; unknown keys are kept.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct PropertyString {
    default: Option<String>,
    entries: Vec<(String, String)>,
}

impl PropertyString {
    /// Parses a property string. Errors name the offending part; a text over
    /// [`MAX_PROPERTY_STRING`] is refused unread.
    pub fn parse(text: &str) -> Result<Self, Error> {
        let (ps, []) = PropertyString::parse_setting_aside(text, [])?;
        Ok(ps)
    }

    /// Parses a property string, setting aside the values of `own` (the keys a typed value
    /// has fields for): they are not among the entries, and are returned in the order asked.
    /// Read from left to right, the first part that is malformed or repeats a key is the error.
    fn parse_setting_aside<const N: usize>(
        text: &str,
        own: [&str; N],
    ) -> Result<(Self, [Option<String>; N]), Error> {
        let invalid = |reason: String| Error::invalid("property string", text, reason);
        if text.len() > MAX_PROPERTY_STRING {
            let start: String = text.chars().take(64).collect();
            return Err(Error::invalid(
                "property string",
                &start,
                format!(
                    "{} bytes is longer than the {MAX_PROPERTY_STRING} bytes a property string may be",
                    text.len()
                ),
            ));
        }
        let mut out = PropertyString::default();
        let mut set_aside: [Option<String>; N] = std::array::from_fn(|_| None);
        let mut seen = HashSet::new();
        for part in text.split(',') {
            let Some(at) = part.find('=') else {
                if part.trim().is_empty() {
                    continue;
                }
                if out.default.is_some() {
                    return Err(invalid(format!(
                        "more than one part without a key (`{part}`)"
                    )));
                }
                out.default = Some(part.to_owned());
                continue;
            };
            let (key, value) = (&part[..at], &part[at + 1..]);
            if key.is_empty() {
                return Err(invalid(format!("part `{part}` has no key before `=`")));
            }
            if value.is_empty() {
                return Err(invalid(format!("key `{key}` has an empty value")));
            }
            if !seen.insert(key) {
                return Err(invalid(format!("duplicate key `{key}`")));
            }
            match own.iter().position(|&k| k == key) {
                Some(i) => set_aside[i] = Some(value.to_owned()),
                None => out.entries.push((key.to_owned(), value.to_owned())),
            }
        }
        Ok((out, set_aside))
    }

    /// [`PropertyString::parse_setting_aside`] for a format without a default key: a part
    /// without `=` is an error of `kind`.
    fn parse_keyed<const N: usize>(
        text: &str,
        kind: &'static str,
        own: [&str; N],
    ) -> Result<(Self, [Option<String>; N]), Error> {
        let (ps, values) = PropertyString::parse_setting_aside(text, own)?;
        match ps.default_value() {
            Some(d) => Err(Error::invalid(
                kind,
                text,
                format!("unexpected part `{d}` without a key"),
            )),
            None => Ok((ps, values)),
        }
    }

    /// The value of the part without `=` (the default key), if any.
    pub fn default_value(&self) -> Option<&str> {
        self.default.as_deref()
    }

    /// The `key=value` parts, in the order written.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = (&str, &str)> + Clone + '_ {
        self.entries.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// How many `key=value` parts there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is no `key=value` part (a default value may still be there).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// Removes the default value and returns it.
    fn take_default(&mut self) -> Option<String> {
        self.default.take()
    }

    /// Removes the first entry whose key matches and returns its key and value.
    fn take_where(&mut self, matches: impl Fn(&str) -> bool) -> Option<(String, String)> {
        let index = self.entries.iter().position(|(k, _)| matches(k))?;
        Some(self.entries.remove(index))
    }

    /// Removes `key` and returns its value.
    fn take(&mut self, key: &str) -> Option<String> {
        self.take_where(|k| k == key).map(|(_, v)| v)
    }

    /// The entries left, as the other keys of a typed value (sorted by key).
    fn into_other_keys(self) -> OtherKeys {
        let mut entries = self.entries;
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        OtherKeys { entries }
    }
}

impl fmt::Debug for PropertyString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PropertyString")
            .field("default", &self.default_value())
            .field("entries", &self.entries)
            .finish()
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
        if let Some(default) = self.default_value() {
            f.write_str(default)?;
            first = false;
        }
        for (k, v) in self.entries() {
            if !first {
                f.write_str(",")?;
            }
            first = false;
            write!(f, "{k}={v}")?;
        }
        Ok(())
    }
}

/// The keys of a typed property string that its type has no field for (`queues` of a NIC,
/// `iothread` of a disk, any key a later PVE adds), kept as written and sorted by key, as PVE
/// prints them.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct OtherKeys {
    /// Sorted by key; keys are unique.
    entries: Vec<(String, String)>,
}

impl OtherKeys {
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.position(key).ok().map(|i| self.entries[i].1.as_str())
    }

    /// The keys and values, sorted by key.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &str)> + Clone + '_ {
        self.entries.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// How many keys there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Sets `key` to `value`, returning the value it replaced.
    pub fn insert(&mut self, key: &str, value: &str) -> Option<String> {
        match self.position(key) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value.to_owned())),
            Err(i) => {
                self.entries.insert(i, (key.to_owned(), value.to_owned()));
                None
            }
        }
    }

    fn position(&self, key: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }
}

impl fmt::Debug for OtherKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: AsRef<str>, V: AsRef<str>> FromIterator<(K, V)> for OtherKeys {
    /// Later values of a key replace earlier ones.
    fn from_iter<T: IntoIterator<Item = (K, V)>>(iter: T) -> Self {
        let mut out = OtherKeys::default();
        for (k, v) in iter {
            out.insert(k.as_ref(), v.as_ref());
        }
        out
    }
}

/// Writes the default value, then the `key=value` pairs of `fields` (a type's own keys) and
/// `other` merged in key order, PVE's canonical order. A key both hold is written once, with
/// the field's value.
fn print_canonical(
    f: &mut fmt::Formatter<'_>,
    default: Option<&str>,
    fields: BTreeMap<&str, String>,
    other: &OtherKeys,
) -> fmt::Result {
    let mut first = true;
    if let Some(default) = default {
        f.write_str(default)?;
        first = false;
    }
    let mut fields = fields.iter().map(|(k, v)| (*k, v.as_str())).peekable();
    let mut other = other.iter().peekable();
    loop {
        let (k, v) = match (fields.peek(), other.peek()) {
            (None, None) => break,
            (Some(_), None) => fields.next(),
            (None, Some(_)) => other.next(),
            (Some((a, _)), Some((b, _))) => match a.cmp(b) {
                std::cmp::Ordering::Less => fields.next(),
                std::cmp::Ordering::Greater => other.next(),
                std::cmp::Ordering::Equal => {
                    other.next();
                    fields.next()
                }
            },
        }
        .expect("peeked");
        if !first {
            f.write_str(",")?;
        }
        first = false;
        write!(f, "{k}={v}")?;
    }
    Ok(())
}

/// The value of a typed property string's field: read from the text of its key, printed back
/// as PVE writes it.
trait PropertyValue: Sized {
    /// `text`, the value of `key` in a `kind`, as this type.
    fn read(text: String, key: &str, kind: &'static str) -> Result<Self, Error>;

    /// The value as written in a property string.
    fn print(&self) -> String;
}

impl PropertyValue for String {
    fn read(text: String, _key: &str, _kind: &'static str) -> Result<Self, Error> {
        Ok(text)
    }

    fn print(&self) -> String {
        self.clone()
    }
}

/// A `0`/`1` flag.
impl PropertyValue for bool {
    fn read(text: String, key: &str, kind: &'static str) -> Result<Self, Error> {
        parse_bool(&text)
            .ok_or_else(|| Error::invalid(kind, &text, format!("`{key}` must be 0 or 1")))
    }

    fn print(&self) -> String {
        if *self { "1" } else { "0" }.to_owned()
    }
}

/// Numbers, written in decimal.
macro_rules! number_property_values {
    ($($number:ty),*) => {$(
        impl PropertyValue for $number {
            fn read(text: String, key: &str, kind: &'static str) -> Result<Self, Error> {
                text.parse()
                    .map_err(|_| Error::invalid(kind, &text, format!("`{key}` must be a number")))
            }

            fn print(&self) -> String {
                self.to_string()
            }
        }
    )*};
}

number_property_values!(u16, u32, u64);

/// `value`, the text of `key` in a `kind` if the string has it, as `T`.
fn read_value<T: PropertyValue>(
    value: Option<String>,
    key: &str,
    kind: &'static str,
) -> Result<Option<T>, Error> {
    value.map(|v| T::read(v, key, kind)).transpose()
}

/// Declares a typed property string from one list of its keyed fields (`field: Type`, or
/// `field: Type = "key"` where the key is not the field's name; each an `Option<Type>` of the
/// struct): the struct, with `extra` for the other keys last;
/// `KEYS`; `from_keyed`, the value from the keyed fields' texts (in `KEYS` order, as
/// [`PropertyString::parse_setting_aside`] returns them) and the other keys; and `keyed_pairs`,
/// the keyed fields that are set, by key, for [`print_canonical`].
///
/// A type whose string has more than keyed fields (a NIC model key, a default part) names the
/// fields it reads itself in `lead { ... }` (they come first, and `from_keyed` leaves them at
/// their default) and implements `FromStr` and `Display` with those helpers. A type without
/// `lead` gets both: its string is keyed parts only (a part without a key is an error), printed
/// in PVE's canonical order.
macro_rules! typed_property_string {
    (@key $field:ident $key:literal) => {
        $key
    };
    (@key $field:ident) => {
        stringify!($field)
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident($kind:literal) {
            lead {
                $( $(#[$lead_meta:meta])* pub $lead:ident: $lead_type:ty, )*
            }
            $( $(#[$field_meta:meta])* $field:ident: $type:ty $(= $key:literal)?, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Default)]
        #[non_exhaustive]
        pub struct $name {
            $( $(#[$lead_meta])* pub $lead: $lead_type, )*
            $( $(#[$field_meta])* pub $field: Option<$type>, )*
            /// Other keys (any this type has no field for, and any a later PVE adds), kept as
            /// written.
            pub extra: OtherKeys,
        }

        impl $name {
            /// The keys of this type's keyed fields; checked against pve-apidoc.json.
            pub const KEYS: &'static [&'static str] = &Self::OWN_KEYS;

            /// [`Self::KEYS`], as the array the parser sets aside.
            const OWN_KEYS: [&'static str; [$(stringify!($field)),*].len()] =
                [$(typed_property_string!(@key $field $($key)?)),*];

            /// What the errors call a string of this type.
            const KIND: &'static str = $kind;

            /// The value of the keyed fields' `values` (in [`Self::KEYS`] order) and `extra`,
            /// the `lead` fields left at their default.
            fn from_keyed(
                values: [Option<String>; Self::OWN_KEYS.len()],
                extra: OtherKeys,
            ) -> Result<Self, Error> {
                let [$($field),*] = values;
                Ok($name {
                    $( $lead: Default::default(), )*
                    $(
                        $field: read_value(
                            $field,
                            typed_property_string!(@key $field $($key)?),
                            $kind,
                        )?,
                    )*
                    extra,
                })
            }

            /// The keyed fields that are set, by key, as they print.
            fn keyed_pairs(&self) -> BTreeMap<&'static str, String> {
                let mut pairs = BTreeMap::new();
                $(
                    if let Some(value) = &self.$field {
                        let key = typed_property_string!(@key $field $($key)?);
                        pairs.insert(key, value.print());
                    }
                )*
                pairs
            }
        }
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident($kind:literal) {
            $( $(#[$field_meta:meta])* $field:ident: $type:ty $(= $key:literal)?, )*
        }
    ) => {
        typed_property_string! {
            $(#[$meta])*
            pub struct $name($kind) {
                lead {}
                $( $(#[$field_meta])* $field: $type $(= $key)?, )*
            }
        }

        impl FromStr for $name {
            type Err = Error;
            fn from_str(text: &str) -> Result<Self, Error> {
                let (ps, values) =
                    PropertyString::parse_keyed(text, $name::KIND, $name::OWN_KEYS)?;
                $name::from_keyed(values, ps.into_other_keys())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                print_canonical(f, None, self.keyed_pairs(), &self.extra)
            }
        }
    };
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

typed_property_string! {
    /// A QEMU network device, `netN` (`virtio=BC:24:11:00:00:01,bridge=vmbr0,firewall=1,tag=20`):
    /// the model is a key of its own holding the MAC address, or `model=…` (with `macaddr=…`).
    /// `KEYS` leaves out `model` and the model keys ([`QEMU_NIC_MODELS`]); the keys without a
    /// field here (`rate`, `queues`, `trunks`, …) are in `extra`.
    pub struct QemuNet("QEMU net device") {
        lead {
            /// The NIC model (`virtio`, `e1000`, …): a key of [`QEMU_NIC_MODELS`], or `model`.
            pub model: String,
        }
        /// The MAC address.
        macaddr: String,
        /// The bridge.
        bridge: String,
        /// Whether the firewall applies.
        firewall: bool,
        /// VLAN tag.
        tag: u16,
        /// Whether the link is down.
        link_down: bool,
        /// MTU.
        mtu: u32,
    }
}

impl FromStr for QemuNet {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self, Error> {
        let (mut ps, values) = PropertyString::parse_keyed(text, Self::KIND, Self::OWN_KEYS)?;
        let model_key = ps.take("model");
        let model_part = ps.take_where(|k| QEMU_NIC_MODELS.contains(&k));
        let mut net = QemuNet::from_keyed(values, ps.into_other_keys())?;
        net.model = match (model_part, model_key) {
            (Some((model, mac)), None) if net.macaddr.is_none() => {
                net.macaddr = Some(mac);
                model
            }
            (Some(_), _) => return Err(Error::invalid(Self::KIND, text, "model given twice")),
            (None, Some(model)) => model,
            (None, None) => {
                return Err(Error::invalid(
                    Self::KIND,
                    text,
                    "no NIC model (`virtio=MAC`)",
                ));
            }
        };
        Ok(net)
    }
}

impl fmt::Display for QemuNet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let head = match &self.macaddr {
            Some(mac) => format!("{}={mac}", self.model),
            None => format!("model={}", self.model),
        };
        let mut pairs = self.keyed_pairs();
        pairs.remove("macaddr");
        print_canonical(f, Some(&head), pairs, &self.extra)
    }
}

typed_property_string! {
    /// A container network interface, `netN`
    /// (`name=eth0,bridge=vmbr0,hwaddr=…,ip=dhcp,type=veth`).
    pub struct LxcNet("container net device") {
        /// Interface name inside the container.
        name: String,
        /// The bridge.
        bridge: String,
        /// MAC address.
        hwaddr: String,
        /// IPv4 address with prefix, `dhcp` or `manual`.
        ip: String,
        /// IPv6 address with prefix, `auto`, `dhcp` or `manual`.
        ip6: String,
        /// IPv4 gateway.
        gw: String,
        /// IPv6 gateway.
        gw6: String,
        /// Whether the firewall applies.
        firewall: bool,
        /// VLAN tag.
        tag: u16,
        /// Interface type (`veth`).
        kind: String = "type",
        /// MTU.
        mtu: u32,
    }
}

typed_property_string! {
    /// A volume: a QEMU disk (`scsi0: local-lvm:vm-100-disk-0,iothread=1,size=32G`), a container
    /// `rootfs` (`local-lvm:vm-200-disk-0,size=8G`) or mount point `mpN`
    /// (`local-lvm:vm-200-disk-1,mp=/srv,backup=1,size=16G`). `KEYS` leaves out the default key
    /// (`file` for QEMU, `volume` for containers); `media` exists for QEMU disks, `mp` for
    /// container mount points.
    pub struct Volume("volume") {
        lead {
            /// The volume (`storage:name`, a path, `none`, or `cdrom`): the default key (`file`
            /// for QEMU, `volume` for containers).
            pub volume: String,
        }
        /// Size as written (`8G`, `512M`, `1T`).
        size: String,
        /// Mount path inside the container (`mpN` only).
        mp: String,
        /// `cdrom` or `disk` (QEMU).
        media: String,
        /// Whether backups include it.
        backup: bool,
    }
}

impl Volume {
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
        let (mut ps, values) = PropertyString::parse_setting_aside(text, Self::OWN_KEYS)?;
        let volume = match ps.take_default() {
            Some(v) => v,
            None => ps
                .take("file")
                .or_else(|| ps.take("volume"))
                .ok_or_else(|| Error::invalid(Self::KIND, text, "no volume"))?,
        };
        Ok(Volume {
            volume,
            ..Volume::from_keyed(values, ps.into_other_keys())?
        })
    }
}

impl fmt::Display for Volume {
    /// Writes the volume as the leading part without a key, as PVE prints it, unless the
    /// volume text itself holds a `=` (`file==` parses to the volume `=`): a part without a
    /// key cannot hold one, so it is written `file=…` instead, which parses back to the same
    /// value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut pairs = self.keyed_pairs();
        if self.volume.contains('=') || self.volume.trim().is_empty() {
            pairs.insert("file", self.volume.clone());
            print_canonical(f, None, pairs, &self.extra)
        } else {
            print_canonical(f, Some(&self.volume), pairs, &self.extra)
        }
    }
}

typed_property_string! {
    /// Container `features` (`nesting=1,keyctl=1`).
    pub struct LxcFeatures("container features") {
        /// Nested containers (and Docker).
        nesting: bool,
        /// `keyctl()` for unprivileged containers.
        keyctl: bool,
        /// FUSE mounts.
        fuse: bool,
        /// `mknod()`.
        mknod: bool,
        /// Allowed file-system types for `mount` (`nfs;cifs`).
        mount: String,
        /// `/sys` mounted `rw`.
        force_rw_sys: bool,
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
    pub extra: OtherKeys,
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
        let (mut ps, [current]) = PropertyString::parse_setting_aside(text, ["current"])?;
        let explicit = read_value::<u64>(current, "current", KIND)?;
        let current =
            match ps.take_default() {
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
            extra: ps.into_other_keys(),
        })
    }
}

impl fmt::Display for QemuMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let current = self.current.map(|c| c.to_string());
        print_canonical(f, current.as_deref(), BTreeMap::new(), &self.extra)
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
        assert_eq!(net.extra.get("queues"), Some("4"));
        assert_eq!(net.to_string(), text);
    }

    #[test]
    fn qemu_net_takes_its_model_from_a_model_key_or_from_model_and_macaddr_once() {
        let net: QemuNet = "model=e1000,macaddr=BC:24:11:AA:BB:CC,bridge=vmbr0"
            .parse()
            .unwrap();
        assert_eq!(net.model, "e1000");
        assert_eq!(net.macaddr.as_deref(), Some("BC:24:11:AA:BB:CC"));
        assert_eq!(net.to_string(), "e1000=BC:24:11:AA:BB:CC,bridge=vmbr0");
        let no_mac: QemuNet = "model=virtio,bridge=vmbr0".parse().unwrap();
        assert_eq!(no_mac.to_string(), "model=virtio,bridge=vmbr0");
        for (text, reason) in [
            ("virtio=AA,model=e1000", "model given twice"),
            ("virtio=AA,macaddr=BB", "model given twice"),
            ("bridge=vmbr0,macaddr=AA", "no NIC model"),
            ("virtio=AA,tag=x", "`tag` must be a number"),
        ] {
            let err = text.parse::<QemuNet>().unwrap_err().to_string();
            assert!(err.contains(reason), "{text}: {err}");
        }
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
    fn lxc_net_reads_each_key_into_its_field_and_type_into_kind() {
        let text = "bridge=vmbr0,firewall=0,gw=10.0.0.1,gw6=fe80::1,hwaddr=BC:24:11:00:00:02,\
                    ip=10.0.0.5/24,ip6=auto,mtu=1400,name=eth0,rate=10,tag=5,type=veth";
        let net: LxcNet = text.parse().unwrap();
        assert_eq!(net.name.as_deref(), Some("eth0"));
        assert_eq!(net.bridge.as_deref(), Some("vmbr0"));
        assert_eq!(net.hwaddr.as_deref(), Some("BC:24:11:00:00:02"));
        assert_eq!(net.ip.as_deref(), Some("10.0.0.5/24"));
        assert_eq!(net.ip6.as_deref(), Some("auto"));
        assert_eq!(net.gw.as_deref(), Some("10.0.0.1"));
        assert_eq!(net.gw6.as_deref(), Some("fe80::1"));
        assert_eq!(net.firewall, Some(false));
        assert_eq!(net.tag, Some(5));
        assert_eq!(net.kind.as_deref(), Some("veth"));
        assert_eq!(net.mtu, Some(1400));
        let other: Vec<(&str, &str)> = net.extra.iter().collect();
        assert_eq!(other, [("rate", "10")], "only the key without a field");
        // A flag prints as PVE writes it (`0`), `kind` under its key `type`, all sorted by key.
        assert_eq!(net.to_string(), text);
        assert_eq!(LxcNet::KEYS[9], "type");
    }

    #[test]
    fn a_bad_value_names_its_key_and_the_kind_of_string() {
        /// The kind of string, the input and the reason of the error parsing `text` gives.
        type Invalid = (&'static str, String, String);
        fn error_of<T: FromStr<Err = Error>>(text: &str) -> Invalid {
            match text.parse::<T>() {
                Err(Error::Invalid {
                    kind,
                    input,
                    reason,
                }) => (kind, input, reason),
                Err(other) => panic!("{text}: {other:?}"),
                Ok(_) => panic!("{text} parsed"),
            }
        }
        let (net, qemu_net, feat) = (
            error_of::<LxcNet> as fn(&str) -> Invalid,
            error_of::<QemuNet> as fn(&str) -> Invalid,
            error_of::<LxcFeatures> as fn(&str) -> Invalid,
        );
        let (volume, memory) = (
            error_of::<Volume> as fn(&str) -> Invalid,
            error_of::<QemuMemory> as fn(&str) -> Invalid,
        );
        let (n, q, f) = (
            "container net device",
            "QEMU net device",
            "container features",
        );
        // A table: one case a line reads better than rustfmt's five lines a case.
        #[rustfmt::skip]
        let cases = [
            // (parser, text, kind, input, reason)
            (net, "firewall=maybe", n, "maybe", "`firewall` must be 0 or 1"),
            (net, "tag=x", n, "x", "`tag` must be a number"),
            (net, "tag=70000", n, "70000", "`tag` must be a number"),
            (net, "mtu=-1", n, "-1", "`mtu` must be a number"),
            (net, "name=eth0,eth1", n, "name=eth0,eth1", "unexpected part `eth1` without a key"),
            (qemu_net, "virtio=AA,firewall=2", q, "2", "`firewall` must be 0 or 1"),
            (qemu_net, "virtio=AA,link_down=2", q, "2", "`link_down` must be 0 or 1"),
            (qemu_net, "virtio=AA,mtu=x", q, "x", "`mtu` must be a number"),
            (volume, "local:vm-1-disk-0,backup=2", "volume", "2", "`backup` must be 0 or 1"),
            (volume, "size=8G", "volume", "size=8G", "no volume"),
            (feat, "nesting=2", f, "2", "`nesting` must be 0 or 1"),
            (feat, "keyctl=2", f, "2", "`keyctl` must be 0 or 1"),
            (feat, "fuse=2", f, "2", "`fuse` must be 0 or 1"),
            (feat, "mknod=2", f, "2", "`mknod` must be 0 or 1"),
            (feat, "force_rw_sys=2", f, "2", "`force_rw_sys` must be 0 or 1"),
            (memory, "current=x", "QEMU memory", "x", "`current` must be a number"),
        ];
        for (parse, text, want_kind, want_input, want_reason) in cases {
            let (kind, input, reason) = parse(text);
            assert_eq!(
                (kind, input.as_str(), reason.as_str()),
                (want_kind, want_input, want_reason),
                "{text}"
            );
        }
    }

    #[test]
    fn flags_print_as_zero_or_one_and_mount_as_written() {
        let f: LxcFeatures = "nesting=1,fuse=0,mount=nfs;cifs,force_rw_sys=0,zz=1"
            .parse()
            .unwrap();
        assert_eq!(
            (f.nesting, f.fuse, f.force_rw_sys, f.keyctl, f.mknod),
            (Some(true), Some(false), Some(false), None, None)
        );
        assert_eq!(f.mount.as_deref(), Some("nfs;cifs"));
        assert_eq!(f.extra.iter().collect::<Vec<_>>(), [("zz", "1")]);
        assert_eq!(
            f.to_string(),
            "force_rw_sys=0,fuse=0,mount=nfs;cifs,nesting=1,zz=1"
        );
        let net: QemuNet = "e1000=AA,link_down=1,firewall=0,mtu=1500".parse().unwrap();
        assert_eq!(
            (net.link_down, net.firewall, net.mtu),
            (Some(true), Some(false), Some(1500))
        );
        assert_eq!(net.to_string(), "e1000=AA,firewall=0,link_down=1,mtu=1500");
        let disk: Volume = "local:vm-1-disk-0,backup=0".parse().unwrap();
        assert_eq!(disk.backup, Some(false));
        assert_eq!(disk.to_string(), "local:vm-1-disk-0,backup=0");
    }

    #[test]
    fn the_first_repeated_key_is_named() {
        let keys: String = (0..3_000).map(|i| format!(",key{i}=v{i}")).collect();
        let parsed = PropertyString::parse(&format!("head{keys}")).expect("unique keys");
        assert_eq!(parsed.len(), 3_000);
        assert_eq!(parsed.get("key2999"), Some("v2999"));
        let err = PropertyString::parse(&format!("head{keys},key1234=again,key77=again"))
            .expect_err("key1234 is repeated");
        assert!(
            err.to_string().contains("duplicate key `key1234`"),
            "names the first repeat: {err}"
        );
        // A repeat before a malformed part is the error, as a reading from the left meets it.
        let err = PropertyString::parse("a=1,a=2,=x").expect_err("repeated");
        assert!(err.to_string().contains("duplicate key `a`"), "{err}");
        let err = PropertyString::parse("a=1,=x,a=2").expect_err("malformed");
        assert!(err.to_string().contains("has no key before `=`"), "{err}");
    }

    #[test]
    fn a_string_over_the_cap_is_refused_and_one_at_the_cap_parses() {
        let at_cap = format!("k={}", "x".repeat(MAX_PROPERTY_STRING - 2));
        assert_eq!(PropertyString::parse(&at_cap).unwrap().len(), 1);
        let err = PropertyString::parse(&format!("{at_cap}y")).expect_err("over the cap");
        assert!(
            err.to_string()
                .contains("65537 bytes is longer than the 65536 bytes a property string may be"),
            "{err}"
        );
    }

    #[test]
    fn other_keys_are_sorted_as_pve_prints_them() {
        let disk: Volume = "local:vm-1-disk-0,zeta=1,alpha=2,mid=3".parse().unwrap();
        let keys: Vec<&str> = disk.extra.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["alpha", "mid", "zeta"]);
        assert_eq!(disk.to_string(), "local:vm-1-disk-0,alpha=2,mid=3,zeta=1");
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
