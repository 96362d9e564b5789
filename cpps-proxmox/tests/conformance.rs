//! Conformance with the PVE API schema `../shared/specs/pve-apidoc.json` (PVE 9, the API
//! viewer's data), through the Proxmox family's one check (`ApiDoc::check_table`, which
//! `cpps-pbs` runs on its table too): every endpoint in `cpps_proxmox::ENDPOINTS` exists with
//! its method, every parameter the client sends is declared with its type, every field a typed
//! answer reads is in the method's `returns` (or listed below, with the reason, as missing from
//! the schema), the version gates are noted; and the keys the property-string types read are
//! keys of the schema's formats.

mod common;

use std::collections::BTreeSet;

use cpps_proxmox::ENDPOINTS;
use cpps_proxmox::family::apidoc::{Reference, SchemaGap, returned_properties};
use cpps_proxmox::family::{Answer, Endpoint, Param, Product, Returns, ServerVersion};
use cpps_proxmox::types::{
    LxcFeatures, LxcNet, QEMU_NIC_MODELS, QemuMemory, QemuNet, ResourceFilter, Volume,
};
use serde_json::Value;

/// Fields the client reads that the schema does not declare, each with where PVE sends it.
const MISSING_FROM_SCHEMA: &[SchemaGap] = &[
    // pve-storage `src/PVE/API2/Storage/Config.pm` `index` returns each storage's whole
    // `storage.cfg` section (`$api_storage_config`; the PBS keys of
    // `src/PVE/Storage/PBSPlugin.pm` `options`), but its schema declares only `storage`.
    SchemaGap {
        method: "GET",
        path: "/storage",
        name: "type",
        why: "pve-storage PVE/API2/Storage/Config.pm $api_storage_config",
    },
    SchemaGap {
        method: "GET",
        path: "/storage",
        name: "content",
        why: "pve-storage PVE/API2/Storage/Config.pm $api_storage_config",
    },
    SchemaGap {
        method: "GET",
        path: "/storage",
        name: "disable",
        why: "pve-storage PVE/API2/Storage/Config.pm $api_storage_config",
    },
    SchemaGap {
        method: "GET",
        path: "/storage",
        name: "nodes",
        why: "pve-storage PVE/API2/Storage/Config.pm $api_storage_config",
    },
    SchemaGap {
        method: "GET",
        path: "/storage",
        name: "server",
        why: "pve-storage PVE/API2/Storage/Config.pm $api_storage_config",
    },
    SchemaGap {
        method: "GET",
        path: "/storage",
        name: "port",
        why: "pve-storage PVE/API2/Storage/Config.pm $api_storage_config",
    },
    SchemaGap {
        method: "GET",
        path: "/storage",
        name: "datastore",
        why: "pve-storage PVE/API2/Storage/Config.pm $api_storage_config",
    },
    SchemaGap {
        method: "GET",
        path: "/storage",
        name: "namespace",
        why: "pve-storage PVE/API2/Storage/Config.pm $api_storage_config",
    },
    SchemaGap {
        method: "GET",
        path: "/storage",
        name: "username",
        why: "pve-storage PVE/API2/Storage/Config.pm $api_storage_config",
    },
    SchemaGap {
        method: "GET",
        path: "/storage",
        name: "fingerprint",
        why: "pve-storage PVE/API2/Storage/Config.pm $api_storage_config",
    },
    SchemaGap {
        method: "GET",
        path: "/storage",
        name: "encryption-key",
        why: "pve-storage PVE/API2/Storage/Config.pm $api_storage_config",
    },
    // pve-manager `PVE/API2/Tasks.pm` `node_tasks` passes every entry through
    // `convert_token_task`, which splits a token's `user@realm!token` into `user` and
    // `tokenid`; the schema of the list declares only `user` (issue 14, defect 10).
    SchemaGap {
        method: "GET",
        path: "/nodes/{node}/tasks",
        name: "tokenid",
        why: "pve-manager PVE/API2/Tasks.pm convert_token_task",
    },
    // `PVE::API2::HA::Resources::index` returns each resource's configuration
    // (`type`, `state`, `group`, `comment`, `max_restart`, `max_relocate`) but its schema
    // declares only `sid`; the same fields are declared for GET /cluster/ha/resources/{sid}.
    SchemaGap {
        method: "GET",
        path: "/cluster/ha/resources",
        name: "type",
        why: "see GET /cluster/ha/resources/{sid}",
    },
    SchemaGap {
        method: "GET",
        path: "/cluster/ha/resources",
        name: "state",
        why: "see GET /cluster/ha/resources/{sid}",
    },
    SchemaGap {
        method: "GET",
        path: "/cluster/ha/resources",
        name: "group",
        why: "see GET /cluster/ha/resources/{sid}",
    },
    SchemaGap {
        method: "GET",
        path: "/cluster/ha/resources",
        name: "comment",
        why: "see GET /cluster/ha/resources/{sid}",
    },
    SchemaGap {
        method: "GET",
        path: "/cluster/ha/resources",
        name: "max_restart",
        why: "see GET /cluster/ha/resources/{sid}",
    },
    SchemaGap {
        method: "GET",
        path: "/cluster/ha/resources",
        name: "max_relocate",
        why: "see GET /cluster/ha/resources/{sid}",
    },
    // `PVE::API2::Tasks::read_task_status` splits a token user into `user` and `tokenid`
    // (as the task list does); the status schema omits `tokenid`.
    SchemaGap {
        method: "GET",
        path: "/nodes/{node}/tasks/{upid}/status",
        name: "tokenid",
        why: "token tasks",
    },
    // The task list's `exitstatus` goes in `status` and `endtime` is declared; `id` and
    // `user` are declared. Nothing else.
    //
    // `NeedTFA` is sent by `PVE::API2::AccessControl::create_ticket` when a second factor is
    // required (with a `PVE:!tfa!` challenge ticket); the returns schema lists only the
    // fields of a complete login.
    SchemaGap {
        method: "POST",
        path: "/access/ticket",
        name: "NeedTFA",
        why: "second-factor challenge",
    },
    // Not missing but not applicable: `GuestCurrentStatus` and `Snapshot` serve VMs and
    // containers alike, and these two fields exist for VMs only; for a container they stay
    // `None` because PVE never sends them.
    SchemaGap {
        method: "GET",
        path: "/nodes/{node}/lxc/{vmid}/status/current",
        name: "qmpstatus",
        why: "QEMU only",
    },
    SchemaGap {
        method: "GET",
        path: "/nodes/{node}/lxc/{vmid}/snapshot",
        name: "vmstate",
        why: "QEMU only",
    },
];

/// The schema's release: `pve-apidoc.json` is PVE 9's (see `shared/specs/SOURCE.md`).
const SCHEMA_RELEASE: ServerVersion = ServerVersion::new(9, 0, 0);

/// `POST /nodes/{node}/vzdump` declares `node` optional: pve-manager `PVE/API2/VZDump.pm`
/// shares its parameters with the `vzdump` command, where `node` means "only run if executed
/// on this node". In the API path it is always there.
const OPTIONAL_PLACEHOLDERS: &[SchemaGap] = &[SchemaGap {
    method: "POST",
    path: "/nodes/{node}/vzdump",
    name: "node",
    why: "pve-manager PVE/API2/VZDump.pm: shared with the vzdump command",
}];

fn reference() -> Reference<'static> {
    Reference {
        product: Product::Pve,
        version: SCHEMA_RELEASE,
        missing_fields: MISSING_FROM_SCHEMA,
        optional_placeholders: OPTIONAL_PLACEHOLDERS,
    }
}

#[test]
fn the_table_conforms_to_the_pve_9_schema() {
    let report = common::pve_schema().check_table(ENDPOINTS, &reference());
    assert!(
        report.problems.is_empty(),
        "schema conformance problems:\n{}",
        report.problems.join("\n")
    );
    assert!(
        ENDPOINTS.len() >= 30,
        "the table lists {} endpoints",
        ENDPOINTS.len()
    );
    assert_eq!(report.endpoints_checked, ENDPOINTS.len());
    assert!(
        report.fields_checked > 150,
        "only {} fields checked",
        report.fields_checked
    );
    // `failback` is gated on PVE 9. `group` is not gated on the release: PVE 9 takes it until
    // the cluster's groups are migrated to rules (pve-ha-manager `HA/Resources.pm`), which
    // `ha_add` reads from the cluster.
    assert_eq!(
        report.notes,
        ["POST /cluster/ha/resources `failback`: since 9.0.0; in the schema of 9.0.0, checked",]
    );
}

#[test]
fn the_ha_list_exceptions_are_declared_for_the_single_resource() {
    let one = common::pve_schema()
        .method("/cluster/ha/resources/{sid}", "GET")
        .unwrap();
    let declared = returned_properties(one);
    for missing in MISSING_FROM_SCHEMA
        .iter()
        .filter(|m| m.path == "/cluster/ha/resources")
    {
        assert!(declared.contains(missing.name), "{}", missing.name);
    }
}

/// The shared check fails on each kind of wrong entry (checked here against the real PVE
/// schema): so does every table that has one.
#[test]
fn the_check_fails_on_a_wrong_entry() {
    const WRONG: &[Endpoint] = &[
        Endpoint::new("GET", "/nodes/{node}/qemus", Returns::Nothing),
        Endpoint::new("PATCH", "/version", Returns::Nothing),
        Endpoint::new(
            "GET",
            "/nodes/{node}/tasks",
            Returns::List(Answer::keys("TaskListItem", || &["upid"])),
        )
        .params(&[
            Param::string("limit"),
            Param::string("vmidd"),
            Param::string("node"),
        ]),
        Endpoint::new(
            "POST",
            "/nodes/{node}/qemu/{vmid}/status/start",
            Returns::Object(Answer::keys("Started", || &["status"])),
        ),
        Endpoint::new(
            "GET",
            "/version",
            Returns::Object(Answer::keys("Version", || &["release", "relaese"])),
        ),
        Endpoint::new("GET", "/version", Returns::Nothing),
        Endpoint::new("GET", "/cluster/ha/rules2", Returns::Nothing)
            .since(ServerVersion::new(10, 0, 0)),
        Endpoint::new(
            "GET",
            "/nodes",
            Returns::Object(Answer::keys("Nodes", || &["node"])),
        ),
    ];
    let gaps = &[
        SchemaGap {
            method: "GET",
            path: "/version",
            name: "release",
            why: "stale",
        },
        SchemaGap {
            method: "GET",
            path: "/nodes/{node}/qemu",
            name: "vmid",
            why: "not in the table",
        },
    ];
    let placeholders = &[SchemaGap {
        method: "GET",
        path: "/nodes/{node}/tasks",
        name: "node",
        why: "stale: the schema requires it",
    }];
    let reference = Reference {
        missing_fields: gaps,
        optional_placeholders: placeholders,
        ..reference()
    };
    let report = common::pve_schema().check_table(WRONG, &reference);
    assert_eq!(
        report.problems,
        [
            "GET /nodes/{node}/qemus: no such path and method",
            "PATCH /version: no such path and method",
            "GET /nodes/{node}/tasks: `node` is a path placeholder, not a parameter to send",
            "GET /nodes/{node}/tasks: `limit` is \"integer\" in the schema, string here",
            "GET /nodes/{node}/tasks: `vmidd` is not a parameter",
            "POST /nodes/{node}/qemu/{vmid}/status/start: answers string, the client reads an object",
            "GET /version: `relaese` is not in `returns` (known: {\"console\", \"release\", \"repoid\", \"version\"})",
            "GET /version: listed twice",
            "GET /nodes: answers array, the client reads an object",
            "GET /version: the schema declares `release` now; drop the gap",
            "GET /nodes/{node}/qemu: a gap for `vmid` of an endpoint not in the table",
            "GET /nodes/{node}/tasks: the schema declares `node` now; drop the gap",
        ],
        "{:#?}",
        report.problems
    );
    assert_eq!(
        report.notes,
        ["GET /cluster/ha/rules2: since 10.0.0; not in the schema of 9.0.0, not required"]
    );
}

fn format_keys(path: &str, key: &str) -> BTreeSet<String> {
    let info = common::pve_schema().method(path, "GET").unwrap();
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
    for key in QemuNet::KEYS
        .iter()
        .chain(&["model"])
        .chain(QEMU_NIC_MODELS)
    {
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
    let info = common::pve_schema()
        .method("/cluster/resources", "GET")
        .unwrap();
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

/// The name types follow the schema's formats: `snapname` is `pve-configid` with `maxLength`
/// 40, `node` is `pve-node` (pve-common `src/PVE/JSONSchema.pm`: `$CONFIGID_RE`,
/// `pve_verify_node_name`).
#[test]
fn the_name_rules_are_the_schemas() {
    use cpps_proxmox::family::names;
    use cpps_proxmox::types::{NodeName, SnapshotName};
    let info = common::pve_schema()
        .method("/nodes/{node}/qemu/{vmid}/snapshot", "POST")
        .unwrap();
    let parameters = &info["parameters"]["properties"];
    assert_eq!(parameters["snapname"]["format"], "pve-configid");
    assert_eq!(
        parameters["snapname"]["maxLength"],
        SnapshotName::RULE.max_len
    );
    assert_eq!(
        SnapshotName::RULE.syntax.pattern,
        names::PVE_CONFIG_ID.pattern
    );
    assert_eq!(parameters["node"]["format"], "pve-node");
    assert_eq!(NodeName::RULE.syntax.pattern, names::PVE_NODE.pattern);
}
