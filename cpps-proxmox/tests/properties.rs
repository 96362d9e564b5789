//! Property tests: UPIDs and property strings print back to what was parsed, and no input,
//! however broken, makes a parser panic.

use std::collections::BTreeMap;

use cpps_http::{HeaderMap, Method, Response, StatusCode};
use cpps_proxmox::VmId;
use cpps_proxmox::family::{self, Upid, UpidParts};
use cpps_proxmox::types::{
    HaSid, LxcFeatures, LxcNet, NodeName, PropertyString, QemuMemory, QemuNet, SnapshotName, Volume,
};
use proptest::prelude::*;

fn node() -> impl Strategy<Value = String> {
    "[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?"
}

fn user() -> impl Strategy<Value = String> {
    (
        "[a-z][a-z0-9._-]{0,8}",
        prop_oneof!["pam", "pve", "ldap-corp"],
        proptest::option::of("[A-Za-z0-9_][A-Za-z0-9._-]{0,8}"),
    )
        .prop_map(|(name, realm, token)| match token {
            Some(t) => format!("{name}@{realm}!{t}"),
            None => format!("{name}@{realm}"),
        })
}

fn upid_parts() -> impl Strategy<Value = UpidParts> {
    (
        node(),
        any::<u32>(),
        0u64..=0xF_FFFF_FFFF,
        proptest::option::of(any::<u64>()),
        any::<u32>(),
        "[a-z][a-z_]{0,15}",
        "[a-z0-9\\\\-]{0,8}",
        user(),
    )
        .prop_map(|(node, pid, pstart, task_id, start, wtype, wid, user)| {
            let parts = UpidParts::pve(node, pid, pstart, u64::from(start), wtype, wid, user);
            match task_id {
                Some(t) => parts.with_task_id(t),
                None => parts,
            }
        })
}

/// A canonical property string: optional head, then `key=value` sorted by key.
fn canonical(head: Option<String>, pairs: BTreeMap<String, String>) -> String {
    let mut parts: Vec<String> = head.into_iter().collect();
    parts.extend(pairs.into_iter().map(|(k, v)| format!("{k}={v}")));
    parts.join(",")
}

fn word() -> impl Strategy<Value = String> {
    "[A-Za-z0-9:/._-]{1,12}"
}

fn flag() -> impl Strategy<Value = String> {
    prop_oneof![Just("0".to_owned()), Just("1".to_owned())]
}

fn number() -> impl Strategy<Value = String> {
    (1u32..100_000).prop_map(|n| n.to_string())
}

/// Picks any subset of `keys`, each with a value from its strategy, plus unknown keys.
fn pairs(
    keys: Vec<(&'static str, BoxedStrategy<String>)>,
) -> impl Strategy<Value = BTreeMap<String, String>> {
    let known: Vec<_> = keys
        .into_iter()
        .map(|(k, s)| proptest::option::of(s).prop_map(move |v| v.map(|v| (k.to_owned(), v))))
        .collect();
    (
        known,
        proptest::collection::btree_map("zz-[a-z]{1,6}", word(), 0..3),
    )
        .prop_map(|(known, extra)| {
            let mut map: BTreeMap<String, String> = known.into_iter().flatten().collect();
            map.extend(extra);
            map
        })
}

fn qemu_net_text() -> impl Strategy<Value = String> {
    let keys = vec![
        ("bridge", word().boxed()),
        ("firewall", flag().boxed()),
        ("link_down", flag().boxed()),
        ("mtu", number().boxed()),
        ("queues", number().boxed()),
        ("rate", number().boxed()),
        ("tag", (1u16..4095).prop_map(|n| n.to_string()).boxed()),
    ];
    (
        prop::sample::select(cpps_proxmox::types::QEMU_NIC_MODELS.to_vec()),
        "[0-9A-F]{2}(:[0-9A-F]{2}){5}",
        pairs(keys),
    )
        .prop_map(|(model, mac, pairs)| canonical(Some(format!("{model}={mac}")), pairs))
}

fn lxc_net_text() -> impl Strategy<Value = String> {
    let keys = vec![
        ("bridge", word().boxed()),
        ("firewall", flag().boxed()),
        ("gw", "10\\.[0-9]{1,3}\\.0\\.1".boxed()),
        ("hwaddr", "[0-9A-F]{2}(:[0-9A-F]{2}){5}".boxed()),
        (
            "ip",
            prop_oneof![
                Just("dhcp".to_owned()),
                "10\\.0\\.[0-9]{1,3}\\.[0-9]{1,3}/24".prop_map(|s| s)
            ]
            .boxed(),
        ),
        ("ip6", Just("auto".to_owned()).boxed()),
        ("mtu", number().boxed()),
        ("name", "eth[0-9]".boxed()),
        ("tag", (1u16..4095).prop_map(|n| n.to_string()).boxed()),
        ("type", Just("veth".to_owned()).boxed()),
    ];
    pairs(keys).prop_map(|p| canonical(None, p))
}

fn volume_text() -> impl Strategy<Value = String> {
    let keys = vec![
        ("backup", flag().boxed()),
        (
            "media",
            prop_oneof![Just("cdrom".to_owned()), Just("disk".to_owned())].boxed(),
        ),
        ("mp", "/[a-z]{1,8}".boxed()),
        ("size", "[1-9][0-9]{0,3}[KMGT]".boxed()),
        ("iothread", flag().boxed()),
        ("cache", word().boxed()),
    ];
    ("[a-z][a-z0-9-]{0,10}:vm-[0-9]{3}-disk-[0-9]", pairs(keys))
        .prop_map(|(v, p)| canonical(Some(v), p))
}

fn features_text() -> impl Strategy<Value = String> {
    let keys = vec![
        ("force_rw_sys", flag().boxed()),
        ("fuse", flag().boxed()),
        ("keyctl", flag().boxed()),
        ("mknod", flag().boxed()),
        ("mount", "[a-z]{1,4}(;[a-z]{1,4}){0,2}".boxed()),
        ("nesting", flag().boxed()),
    ];
    pairs(keys).prop_map(|p| canonical(None, p))
}

fn memory_text() -> impl Strategy<Value = String> {
    (
        number(),
        proptest::collection::btree_map("zz-[a-z]{1,6}", word(), 0..2),
    )
        .prop_map(|(current, extra)| canonical(Some(current), extra))
}

fn response(status: u16, body: Vec<u8>) -> Response {
    Response::from_parts(
        Method::GET,
        "https://127.0.0.1:8006/api2/json/nodes".parse().unwrap(),
        StatusCode::from_u16(status).unwrap(),
        HeaderMap::new(),
        body,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn upids_round_trip(parts in upid_parts()) {
        let upid = Upid::from_parts(parts.clone()).unwrap();
        prop_assert_eq!(upid.parts(), &parts);
        let text = upid.to_string();
        let again: Upid = text.parse().unwrap();
        prop_assert_eq!(again.to_string(), text);
        prop_assert_eq!(again.parts(), &parts);
        let json = serde_json::to_string(&upid).unwrap();
        prop_assert_eq!(serde_json::from_str::<Upid>(&json).unwrap(), upid);
    }

    #[test]
    fn generic_property_strings_round_trip(
        default in proptest::option::of("[A-Za-z0-9:/._-]{1,10}"),
        entries in proptest::collection::btree_map("[a-z][a-z0-9_-]{0,8}", "[A-Za-z0-9:/._=-]{1,10}", 0..6),
    ) {
        let text = canonical(default.clone(), entries.clone());
        let parsed = PropertyString::parse(&text).unwrap();
        prop_assert_eq!(parsed.default_value(), default.as_deref());
        prop_assert_eq!(parsed.len(), entries.len());
        prop_assert_eq!(parsed.to_string(), text);
    }

    #[test]
    fn typed_property_strings_print_back_identically(
        net in qemu_net_text(),
        ct_net in lxc_net_text(),
        volume in volume_text(),
        features in features_text(),
        memory in memory_text(),
    ) {
        prop_assert_eq!(net.parse::<QemuNet>().unwrap().to_string(), net);
        prop_assert_eq!(ct_net.parse::<LxcNet>().unwrap().to_string(), ct_net);
        prop_assert_eq!(volume.parse::<Volume>().unwrap().to_string(), volume);
        prop_assert_eq!(features.parse::<LxcFeatures>().unwrap().to_string(), features);
        prop_assert_eq!(memory.parse::<QemuMemory>().unwrap().to_string(), memory);
    }

    /// Each key a typed value has a field for is read into it and is not among the other keys;
    /// every other key is (`type` is `LxcNet::kind`, the model key and the default part are
    /// `QemuNet::model` and `Volume::volume`).
    #[test]
    fn typed_property_strings_keep_the_keys_without_a_field_as_other_keys(
        net in qemu_net_text(),
        ct_net in lxc_net_text(),
        volume in volume_text(),
        features in features_text(),
    ) {
        /// The keys of `text` (its first part left out when `head`) that are not in `keys`.
        fn others<'a>(text: &'a str, head: bool, keys: &[&str]) -> Vec<&'a str> {
            let mut out: Vec<&str> = text
                .split(',')
                .skip(usize::from(head))
                .filter_map(|part| part.split_once('=').map(|(k, _)| k))
                .filter(|k| !keys.contains(k))
                .collect();
            out.sort_unstable();
            out
        }
        fn extra_keys(extra: &cpps_proxmox::types::OtherKeys) -> Vec<&str> {
            extra.iter().map(|(k, _)| k).collect()
        }
        let parsed = net.parse::<QemuNet>().unwrap();
        prop_assert_eq!(extra_keys(&parsed.extra), others(&net, true, QemuNet::KEYS));
        prop_assert!(parsed.macaddr.is_some());
        let parsed = ct_net.parse::<LxcNet>().unwrap();
        prop_assert_eq!(extra_keys(&parsed.extra), others(&ct_net, false, LxcNet::KEYS));
        prop_assert_eq!(parsed.kind.is_some(), ct_net.contains("type=veth"));
        let parsed = volume.parse::<Volume>().unwrap();
        prop_assert_eq!(extra_keys(&parsed.extra), others(&volume, true, Volume::KEYS));
        let parsed = features.parse::<LxcFeatures>().unwrap();
        prop_assert_eq!(extra_keys(&parsed.extra), others(&features, false, LxcFeatures::KEYS));
    }

    #[test]
    fn any_order_prints_to_an_equal_value(text in qemu_net_text(), seed in any::<u64>()) {
        // Shuffle the key=value parts: PVE accepts any order; printing sorts them.
        let mut parts: Vec<&str> = text.split(',').collect();
        let head = parts.remove(0);
        let n = parts.len();
        if n > 1 {
            parts.rotate_left((seed as usize) % n);
        }
        let shuffled = std::iter::once(head).chain(parts).collect::<Vec<_>>().join(",");
        let parsed: QemuNet = shuffled.parse().unwrap();
        prop_assert_eq!(parsed.to_string(), text.clone());
        prop_assert_eq!(parsed, text.parse::<QemuNet>().unwrap());
    }

    #[test]
    fn arbitrary_text_never_panics_the_parsers(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = Upid::parse(&text);
        let _ = PropertyString::parse(&text);
        let _ = text.parse::<QemuNet>();
        let _ = text.parse::<LxcNet>();
        if let Ok(v) = text.parse::<Volume>() {
            let _ = v.size_bytes();
            let _ = v.storage();
        }
        let _ = text.parse::<LxcFeatures>();
        let _ = text.parse::<QemuMemory>().map(|m| m.bytes());
        let _ = text.parse::<HaSid>();
        let _ = text.parse::<VmId>();
        let _ = NodeName::new(text.as_ref());
        let _ = SnapshotName::new(text.as_ref());
        let _ = family::split_token(&text);
        let _ = text.parse::<family::AuthId>();
    }

    #[test]
    fn structured_junk_never_panics_the_parsers(
        parts in proptest::collection::vec(prop_oneof!["[=,:!@ ]{0,3}", "[A-Za-z0-9]{0,6}", Just("UPID:".to_owned()), Just("virtio=".to_owned()), Just("size=".to_owned())], 0..12)
    ) {
        let text = parts.concat();
        let _ = Upid::parse(&text);
        let _ = text.parse::<QemuNet>();
        let _ = text.parse::<Volume>().map(|v| v.size_bytes());
        let _ = text.parse::<QemuMemory>();
        let _ = family::split_token(&text);
    }

    #[test]
    fn arbitrary_bodies_never_panic_the_envelope(
        status in prop::sample::select(vec![200u16, 400, 401, 404, 500, 502]),
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
    ) {
        let _ = family::decode_envelope::<serde_json::Value>(response(status, bytes.clone()));
        let _ = family::decode_envelope::<Vec<cpps_proxmox::types::ClusterResource>>(response(status, bytes.clone()));
        let _ = family::decode_page::<Vec<family::LogLine>>(response(status, bytes));
    }

    /// Any text a parser accepts prints to text that parses back to the same value (issue 20:
    /// the volume `file==` printed as `=`, which does not parse).
    #[test]
    fn accepted_text_prints_to_text_that_parses_to_the_same_value(
        parts in proptest::collection::vec(prop_oneof![
            Just("=".to_owned()), Just(",".to_owned()), Just(" ".to_owned()),
            Just("file=".to_owned()), Just("volume=".to_owned()), Just("size=".to_owned()),
            Just("virtio=".to_owned()), Just("model=".to_owned()), Just("current=".to_owned()),
            Just("nesting=".to_owned()), Just("1".to_owned()),
            "[A-Za-z0-9:/._-]{1,4}",
        ], 0..10)
    ) {
        let text = parts.concat();
        fn check<T>(text: &str) -> Result<(), TestCaseError>
        where
            T: std::str::FromStr + std::fmt::Display + PartialEq + std::fmt::Debug,
            T::Err: std::fmt::Display,
        {
            if let Ok(value) = text.parse::<T>() {
                let printed = value.to_string();
                match printed.parse::<T>() {
                    Ok(again) => prop_assert_eq!(again, value, "{:?} printed as {:?}", text, printed),
                    Err(e) => prop_assert!(false, "{:?} printed as {:?}, which does not parse: {}", text, printed, e),
                }
            }
            Ok(())
        }
        check::<Volume>(&text)?;
        check::<QemuNet>(&text)?;
        check::<LxcNet>(&text)?;
        check::<LxcFeatures>(&text)?;
        check::<QemuMemory>(&text)?;
        check::<PropertyString>(&text)?;
    }
}

/// The case issue 20 found: `file==` is the volume `=`; it used to print as `=`.
#[test]
fn a_volume_holding_an_equals_sign_prints_with_its_key() {
    let volume: Volume = "file==".parse().unwrap();
    assert_eq!(volume.volume, "=");
    assert_eq!(volume.to_string(), "file==");
    assert_eq!(volume.to_string().parse::<Volume>().unwrap(), volume);
    let volume: Volume = "volume=a=b,size=8G".parse().unwrap();
    assert_eq!(volume.to_string(), "file=a=b,size=8G");
    // The usual form is unchanged: the volume first, without a key.
    let volume: Volume = "local-lvm:vm-200-disk-0,size=8G".parse().unwrap();
    assert_eq!(volume.to_string(), "local-lvm:vm-200-disk-0,size=8G");
}

/// A property string with as many keys as the size cap allows parses and keeps every key; a
/// longer one is refused with the cap named (real strings have about ten keys). This test
/// asserts only the values, never a time.
#[test]
fn a_property_string_at_the_cap_keeps_every_key_and_a_longer_one_is_refused() {
    let text: String = (0..5_000)
        .map(|i| format!("k{i}={i}"))
        .collect::<Vec<_>>()
        .join(",");
    assert!(text.len() <= cpps_proxmox::types::MAX_PROPERTY_STRING);
    let parsed = PropertyString::parse(&text).unwrap();
    assert_eq!(parsed.len(), 5_000);
    assert_eq!(parsed.get("k4999"), Some("4999"));
    let duplicate = format!("{text},k5=again");
    let err = PropertyString::parse(&duplicate).unwrap_err().to_string();
    assert!(err.contains("duplicate key `k5`"), "{err}");
    let over: String = (0..20_000).map(|i| format!("k{i}={i},")).collect();
    let err = PropertyString::parse(&over).unwrap_err().to_string();
    assert!(err.contains("bytes a property string may be"), "{err}");
}

/// Of several repeated keys, the error names the one a reading from left to right meets first,
/// among few keys and among as many as the size cap allows.
#[test]
fn the_first_repeated_key_in_reading_order_is_the_one_named() {
    for keys in [5usize, 40, 3_000, 5_000] {
        let mut parts: Vec<String> = (0..keys).map(|i| format!("k{i}=v")).collect();
        // `k1` comes back near the end, `k2` just after the middle: `k2`'s second part is met first.
        parts.insert(keys - 1, "k1=again".to_owned());
        parts.insert(keys / 2 + 1, "k2=again".to_owned());
        let err = PropertyString::parse(&parts.join(","))
            .unwrap_err()
            .to_string();
        assert!(err.contains("duplicate key `k2`"), "{keys} keys: {err}");
    }
}

/// A repeated key before a malformed part is the error named, and a malformed part before any
/// repeated key is: what a reading from left to right meets first.
#[test]
fn a_repeated_key_and_a_malformed_part_are_named_in_reading_order() {
    let many: String = (0..100).map(|i| format!("k{i}=v,")).collect();
    let err = PropertyString::parse(&format!("{many}k7=v,bad="))
        .unwrap_err()
        .to_string();
    assert!(err.contains("duplicate key `k7`"), "{err}");
    let err = PropertyString::parse(&format!("{many}bad=,k7=v"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("key `bad` has an empty value"), "{err}");
}

/// A typed value's own keys are set aside while the string is read: one given twice is a
/// repeated key like any other, and of several repeats the one a reading from left to right
/// meets first is named, among few keys and among many.
#[test]
fn a_typed_values_own_key_given_twice_is_named_in_reading_order() {
    for others in [1usize, 100] {
        let many: String = (0..others).map(|i| format!(",k{i}=v")).collect();
        let cases = [
            (
                format!("local:vm-1-disk-0{many},size=1G,ssd=1,size=2G"),
                "size",
            ),
            (
                format!("local:vm-1-disk-0,ssd=1,ssd=0{many},size=1G,size=2G"),
                "ssd",
            ),
            (
                format!("local:vm-1-disk-0,size=1G,size=2G,ssd=1{many},ssd=0"),
                "size",
            ),
        ];
        for (text, repeated) in cases {
            let err = text.parse::<Volume>().unwrap_err().to_string();
            assert!(
                err.contains(&format!("duplicate key `{repeated}`")),
                "{others} other keys: {err}"
            );
        }
    }
}

/// Many other keys in no order come back sorted, keys sharing a long prefix and keys whose
/// first eight bytes after it are equal too; and a value's own keys are not among them.
#[test]
fn many_other_keys_in_no_order_come_back_sorted() {
    let n = 1_500;
    let mut keys: Vec<String> = (0..n)
        .map(|i| match i % 3 {
            0 => format!("shared-long-prefix-{}", i * 7_919 % n),
            1 => format!("shared-long-prefix-12345678-{i}"),
            _ => format!("z{}", i * 31 % n),
        })
        .collect();
    let text = format!(
        "local:vm-1-disk-0,size=4G,{}",
        keys.iter()
            .map(|k| format!("{k}=1"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let volume: Volume = text.parse().unwrap();
    keys.sort();
    let got: Vec<&str> = volume.extra.iter().map(|(k, _)| k).collect();
    assert_eq!(got, keys);
    assert_eq!(volume.size.as_deref(), Some("4G"));
    assert_eq!(volume.extra.get("size"), None);
}

/// The keys a typed value has no field for are kept sorted by key, however they were written,
/// and print merged with the fields in PVE's order; a key set both as a field and among the
/// other keys prints once, with the field's value.
#[test]
fn other_keys_are_kept_sorted_and_print_in_pves_order() {
    let volume: Volume = "local-lvm:vm-100-disk-0,ssd=1,iothread=1,size=32G,aio=native"
        .parse()
        .unwrap();
    let other: Vec<(&str, &str)> = volume.extra.iter().collect();
    assert_eq!(other, [("aio", "native"), ("iothread", "1"), ("ssd", "1")]);
    assert_eq!(volume.extra.get("iothread"), Some("1"));
    assert_eq!(
        volume.extra.get("size"),
        None,
        "a field's key is not among the others"
    );
    assert_eq!(
        volume.to_string(),
        "local-lvm:vm-100-disk-0,aio=native,iothread=1,size=32G,ssd=1"
    );
    let mut edited = volume.clone();
    assert_eq!(edited.extra.insert("ssd", "0"), Some("1".to_owned()));
    assert_eq!(edited.extra.insert("size", "1G"), None);
    assert_eq!(edited.extra.len(), 4);
    assert_eq!(
        edited.to_string(),
        "local-lvm:vm-100-disk-0,aio=native,iothread=1,size=32G,ssd=0"
    );
    let collected: cpps_proxmox::types::OtherKeys =
        [("b", "2"), ("a", "1"), ("b", "3")].into_iter().collect();
    assert_eq!(
        collected.iter().collect::<Vec<_>>(),
        [("a", "1"), ("b", "3")]
    );
    assert_eq!(format!("{collected:?}"), r#"{"a": "1", "b": "3"}"#);
}
