//! Property tests: `ret_code` bit decoding against LINSTOR's `ApiConsts`, and decoders that
//! never panic on arbitrary JSON.

use cpps_linstor::health::{self, ClusterState, HealthOptions};
use cpps_linstor::types::misc::{ControllerProperties, ErrorReport};
use cpps_linstor::types::node::Node;
use cpps_linstor::types::rc::{ApiCallRc, RcKind, RcObject, RcOperation};
use cpps_linstor::types::resource::{ResourceDefinition, ResourceGroup, ResourceWithVolumes};
use cpps_linstor::types::snapshot::Snapshot;
use cpps_linstor::types::storage::StoragePool;
use proptest::prelude::*;
use serde_json::Value;

fn rc(ret_code: i64) -> ApiCallRc {
    serde_json::from_value(serde_json::json!({"ret_code": ret_code, "message": "m"})).unwrap()
}

proptest! {
    // ApiConsts: MASK_ERROR = 0xC000000000000000, MASK_WARN = 0x8000000000000000,
    // MASK_INFO = 0x4000000000000000, MASK_SUCCESS = 0; operation bits 0x3000000; object bits
    // 0x7C0000; code bits 0x7FFF.
    #[test]
    fn ret_code_parts_follow_apiconsts(type_bits in 0_u64..4, op in 0_u64..4, obj in 0_u64..32, code in 0_u64..0x8000, noise in any::<u64>()) {
        // Bits outside every mask (15–17, 26–61) must not change the decoding.
        let noise = noise & !(0xC000_0000_0000_0000 | 0x0300_0000 | 0x007C_0000 | 0x7FFF);
        let raw = (type_bits << 62) | (op << 24) | (obj << 18) | code | noise;
        let value = rc(raw as i64);
        let expected_kind = match type_bits { 0 => RcKind::Success, 1 => RcKind::Info, 2 => RcKind::Warning, _ => RcKind::Error };
        prop_assert_eq!(value.kind(), expected_kind);
        prop_assert_eq!(value.is_error(), type_bits == 3);
        prop_assert_eq!(value.is_warning(), type_bits == 2, "an error is never a warning");
        prop_assert_eq!(value.is_info(), type_bits == 1, "an error is never an info");
        prop_assert_eq!(value.is_success(), type_bits == 0);
        let expected_op = match op { 0 => RcOperation::None, 1 => RcOperation::Create, 2 => RcOperation::Modify, _ => RcOperation::Delete };
        prop_assert_eq!(value.operation(), expected_op);
        prop_assert_eq!(value.code(), code);
        match value.object() {
            RcObject::None => prop_assert_eq!(obj, 0),
            RcObject::Unknown(bits) => {
                prop_assert!(obj > 0x15, "known object decoded as unknown: {obj}");
                prop_assert_eq!(bits, obj << 18);
            }
            _ => prop_assert!((1..=0x15).contains(&obj)),
        }
    }
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop_oneof![
            Just("UpToDate"),
            Just("Outdated"),
            Just("SyncTarget"),
            Just("StandAlone"),
            Just("ONLINE"),
            Just("DRBD"),
            Just("DISKLESS"),
            Just("EVICTED"),
            Just(""),
            Just("ñ")
        ]
        .prop_map(|s| Value::String(s.to_owned())),
        ".{0,12}".prop_map(Value::String),
    ];
    let keys = prop_oneof![
        Just("name"),
        Just("node_name"),
        Just("type"),
        Just("flags"),
        Just("volumes"),
        Just("state"),
        Just("disk_state"),
        Just("replication_states"),
        Just("layer_object"),
        Just("drbd"),
        Just("connections"),
        Just("connected"),
        Just("message"),
        Just("children"),
        Just("provider_kind"),
        Just("free_capacity"),
        Just("total_capacity"),
        Just("ret_code"),
        Just("select_filter"),
        Just("place_count"),
        Just("connection_status"),
        Just("net_interfaces"),
        Just("address"),
        Just("error_time"),
        Just("layer_data_list"),
        Just("data"),
        Just("reports"),
        Just("storage_pool_name"),
        Just("resource_group_name"),
        Just("done_percentage")
    ];
    leaf.prop_recursive(5, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(keys.clone().prop_map(str::to_owned), inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn decode<T: serde::de::DeserializeOwned>(text: &str) -> Option<T> {
    cpps_http::decode_json::<T>(text.as_bytes()).ok()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    // Whatever JSON arrives, decoding returns a value or an error, and whatever decodes can be
    // assessed without panicking.
    #[test]
    fn decoders_and_health_never_panic(value in arbitrary_json()) {
        let text = value.to_string();
        let as_list = Value::Array(vec![value.clone()]).to_string();
        let _ = decode::<Vec<ApiCallRc>>(&text);
        let _ = decode::<ControllerProperties>(&text);
        let _ = decode::<Vec<ErrorReport>>(&as_list);
        let _ = decode::<Vec<Snapshot>>(&as_list);
        let nodes = decode::<Vec<Node>>(&as_list).unwrap_or_default();
        let pools = decode::<Vec<StoragePool>>(&as_list).unwrap_or_default();
        let groups = decode::<Vec<ResourceGroup>>(&as_list).unwrap_or_default();
        let definitions = decode::<Vec<ResourceDefinition>>(&as_list).unwrap_or_default();
        let resources = decode::<Vec<ResourceWithVolumes>>(&as_list).unwrap_or_default();
        let state = ClusterState { nodes, storage_pools: pools, resource_groups: groups, resource_definitions: definitions, resources };
        let report = health::assess(&state, &HealthOptions::default());
        let _ = health::render_text(&report);
    }

    // Any string where an enum is expected decodes, known or not.
    #[test]
    fn unknown_enum_values_never_break_a_list(status in ".{0,20}", layer in "[A-Z_]{1,12}", provider in "[A-Z_]{1,12}") {
        let nodes = serde_json::json!([{"name": "n1", "type": layer, "connection_status": status, "resource_layers": [layer], "storage_providers": [provider]}]);
        let decoded: Vec<Node> = serde_json::from_value(nodes).unwrap();
        prop_assert_eq!(decoded[0].connection_status.as_ref().map(|s| s.as_str().to_owned()), Some(status));
        prop_assert_eq!(decoded[0].resource_layers[0].as_str(), layer.as_str());
        prop_assert_eq!(decoded[0].storage_providers[0].as_str(), provider.as_str());
    }
}
