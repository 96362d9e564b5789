//! Conformance with the PVE API schema `../shared/specs/pve-apidoc.json` (PVE 9, the API
//! viewer's data): every endpoint in `cpps_proxmox::ENDPOINTS` exists with its method, every
//! parameter the client sends is declared, every field a typed answer reads is in the
//! method's `returns` (or listed below, with the reason, as missing from the schema), and the
//! keys the property-string types read are keys of the schema's formats.

mod common;

use std::collections::BTreeSet;

use cpps_proxmox::types::{
    LxcFeatures, LxcNet, QEMU_NIC_MODELS, QemuMemory, QemuNet, ResourceFilter, Volume,
};
use cpps_proxmox::{ENDPOINTS, Returns};
use serde_json::Value;

/// Fields the client reads that the schema does not declare, each with where PVE sends it.
const MISSING_FROM_SCHEMA: &[(&str, &str, &str, &str)] = &[
    // pve-manager `PVE/API2/Tasks.pm` `node_tasks` passes every entry through
    // `convert_token_task`, which splits a token's `user@realm!token` into `user` and
    // `tokenid`; the schema of the list declares only `user` (issue 14, defect 10).
    (
        "GET",
        "/nodes/{node}/tasks",
        "tokenid",
        "pve-manager PVE/API2/Tasks.pm convert_token_task",
    ),
    // `PVE::API2::HA::Resources::index` returns each resource's configuration
    // (`type`, `state`, `group`, `comment`, `max_restart`, `max_relocate`) but its schema
    // declares only `sid`; the same fields are declared for GET /cluster/ha/resources/{sid}.
    (
        "GET",
        "/cluster/ha/resources",
        "type",
        "see GET /cluster/ha/resources/{sid}",
    ),
    (
        "GET",
        "/cluster/ha/resources",
        "state",
        "see GET /cluster/ha/resources/{sid}",
    ),
    (
        "GET",
        "/cluster/ha/resources",
        "group",
        "see GET /cluster/ha/resources/{sid}",
    ),
    (
        "GET",
        "/cluster/ha/resources",
        "comment",
        "see GET /cluster/ha/resources/{sid}",
    ),
    (
        "GET",
        "/cluster/ha/resources",
        "max_restart",
        "see GET /cluster/ha/resources/{sid}",
    ),
    (
        "GET",
        "/cluster/ha/resources",
        "max_relocate",
        "see GET /cluster/ha/resources/{sid}",
    ),
    // `PVE::API2::Tasks::read_task_status` splits a token user into `user` and `tokenid`
    // (as the task list does); the status schema omits `tokenid`.
    (
        "GET",
        "/nodes/{node}/tasks/{upid}/status",
        "tokenid",
        "token tasks",
    ),
    // The task list's `exitstatus` goes in `status` and `endtime` is declared; `id` and
    // `user` are declared. Nothing else.
    //
    // `NeedTFA` is sent by `PVE::API2::AccessControl::create_ticket` when a second factor is
    // required (with a `PVE:!tfa!` challenge ticket); the returns schema lists only the
    // fields of a complete login.
    (
        "POST",
        "/access/ticket",
        "NeedTFA",
        "second-factor challenge",
    ),
    // Not missing but not applicable: `GuestCurrentStatus` and `Snapshot` serve VMs and
    // containers alike, and these two fields exist for VMs only; for a container they stay
    // `None` because PVE never sends them.
    (
        "GET",
        "/nodes/{node}/lxc/{vmid}/status/current",
        "qmpstatus",
        "QEMU only",
    ),
    (
        "GET",
        "/nodes/{node}/lxc/{vmid}/snapshot",
        "vmstate",
        "QEMU only",
    ),
];

fn returned_properties(info: &Value) -> BTreeSet<String> {
    let returns = &info["returns"];
    let object = if returns["type"] == "array" {
        &returns["items"]
    } else {
        returns
    };
    object["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn every_endpoint_method_and_parameter_exists() {
    let mut problems = Vec::new();
    for endpoint in ENDPOINTS {
        let Some(info) = common::pve_method(endpoint.path, endpoint.method) else {
            problems.push(format!(
                "{} {}: not in the schema",
                endpoint.method, endpoint.path
            ));
            continue;
        };
        let declared = info["parameters"]["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        for param in endpoint.params {
            if !declared.contains_key(*param) {
                problems.push(format!(
                    "{} {}: parameter `{param}` not declared",
                    endpoint.method, endpoint.path
                ));
            }
        }
        // Path parameters must be among the declared parameters we send.
        for segment in endpoint.path.split('/') {
            if let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}'))
                && !endpoint.params.contains(&name)
            {
                problems.push(format!(
                    "{} {}: path parameter `{name}` missing from the table",
                    endpoint.method, endpoint.path
                ));
            }
        }
        if matches!(endpoint.returns, Returns::Upid) {
            let kind = &info["returns"]["type"];
            if kind != "string" {
                problems.push(format!(
                    "{} {}: returns {kind}, the client expects a UPID string",
                    endpoint.method, endpoint.path
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "schema conformance problems:\n{}",
        problems.join("\n")
    );
    assert!(
        ENDPOINTS.len() >= 30,
        "the table lists {} endpoints",
        ENDPOINTS.len()
    );
}

#[test]
fn every_typed_field_is_in_the_returns_schema() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for endpoint in ENDPOINTS {
        let Some(info) = common::pve_method(endpoint.path, endpoint.method) else {
            continue;
        };
        let known = returned_properties(info);
        for field in endpoint.returned_fields() {
            checked += 1;
            if known.contains(*field) {
                continue;
            }
            let excused = MISSING_FROM_SCHEMA
                .iter()
                .any(|(m, p, f, _)| *m == endpoint.method && *p == endpoint.path && f == field);
            if !excused {
                problems.push(format!(
                    "{} {}: field `{field}` is not in `returns` (known: {known:?})",
                    endpoint.method, endpoint.path
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(checked > 150, "only {checked} fields checked");
}

#[test]
fn the_exceptions_are_really_missing() {
    // An exception that the schema now declares is stale and must go.
    for (method, path, field, _) in MISSING_FROM_SCHEMA {
        let info = common::pve_method(path, method).expect("endpoint exists");
        assert!(
            !returned_properties(info).contains(*field),
            "{method} {path}: `{field}` is declared now; drop the exception"
        );
    }
    // The HA list fields are declared for the single resource.
    let one = common::pve_method("/cluster/ha/resources/{sid}", "GET").unwrap();
    for field in [
        "type",
        "state",
        "group",
        "comment",
        "max_restart",
        "max_relocate",
    ] {
        assert!(returned_properties(one).contains(field), "{field}");
    }
}

fn format_keys(path: &str, key: &str) -> BTreeSet<String> {
    let info = common::pve_method(path, "GET").unwrap();
    info["returns"]["properties"][key]["format"]
        .as_object()
        .unwrap_or_else(|| panic!("{path} `{key}` has no format"))
        .keys()
        .cloned()
        .collect()
}

#[test]
fn property_string_keys_are_schema_keys() {
    const QEMU: &str = "/nodes/{node}/qemu/{vmid}/config";
    const LXC: &str = "/nodes/{node}/lxc/{vmid}/config";
    let qemu_net = format_keys(QEMU, "net[n]");
    for key in QemuNet::KEYS.iter().chain(QEMU_NIC_MODELS) {
        assert!(qemu_net.contains(*key), "qemu net[n] has no `{key}`");
    }
    let lxc_net = format_keys(LXC, "net[n]");
    for key in LxcNet::KEYS {
        assert!(lxc_net.contains(*key), "lxc net[n] has no `{key}`");
    }
    let mut volume: BTreeSet<String> = format_keys(QEMU, "scsi[n]");
    volume.extend(format_keys(LXC, "mp[n]"));
    volume.extend(format_keys(LXC, "rootfs"));
    for key in Volume::KEYS.iter().chain(&["file", "volume"]) {
        assert!(volume.contains(*key), "no volume format has `{key}`");
    }
    let features = format_keys(LXC, "features");
    for key in LxcFeatures::KEYS {
        assert!(features.contains(*key), "features has no `{key}`");
    }
    let memory = format_keys(QEMU, "memory");
    for key in QemuMemory::KEYS {
        assert!(memory.contains(*key), "memory has no `{key}`");
    }
}

#[test]
fn resource_filter_values_are_schema_values() {
    let info = common::pve_method("/cluster/resources", "GET").unwrap();
    let allowed: Vec<&str> = info["parameters"]["properties"]["type"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for filter in [
        ResourceFilter::Vm,
        ResourceFilter::Storage,
        ResourceFilter::Node,
        ResourceFilter::Sdn,
    ] {
        assert!(allowed.contains(&filter.as_str()), "{filter}");
    }
}
