//! Shared setup of the API tests.
//!
//! No VyOS router can run here, so the API tests use wiremock servers shaped after VyOS's own
//! documents and server code: `../shared/specs/vyos-http-api.md` (newest API document: `/info`,
//! `merge` and inline `string`, commit-confirm with `confirm_time` and `op: confirm`) and vyos-1x
//! `src/services/api/rest/models.py` and `routers.py` (JSON bodies with `key`; answers
//! `{"success","data","error"}` sent as `text/html` by `HTMLResponse`; error text HTML-escaped by
//! `escape(msg, quote=False)` on 1.5, as written by 1.4's `src/services/vyos-http-api-server`;
//! 400 for a refused command, 401 for a bad key, 422/500; one global lock around every
//! configuration session). Each test names the behaviour it relies on.
#![allow(dead_code, unreachable_pub)]

pub mod printers;
pub mod vyos1x;

use cpps_http::test_util::MockApi;
use cpps_vyos::Client;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockBuilder, ResponseTemplate};

/// This crate's fixtures, named from the workspace so that `examples/tests/vyos_apply.rs`,
/// which runs the `vyos-apply` binary against these fakes, finds them too.
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../cpps-vyos/tests/fixtures");

/// The API key the tests use.
pub const KEY: &str = "S3cur3-test-key-do-not-log";

/// A mock router and a client of it.
pub async fn router() -> (MockApi, Client) {
    let api = MockApi::start("").await;
    let client = Client::new(api.client(), cpps_vyos::SecretString::from(KEY.to_owned()));
    (api, client)
}

/// A mock of `POST {p}`: every call of VyOS's API but `/info` is a POST of a JSON body.
pub fn post(p: &str) -> MockBuilder {
    Mock::given(method("POST")).and(path(p))
}

/// Serves `GET /info` as a VyOS 1.5 router named `r1` answers it (the 1.5 API's version probe),
/// and `GET /openapi.json` with `confirm_time` in the `/configure` request ([`openapi_doc`]).
pub async fn serve_info_1_5(api: &MockApi) {
    Mock::given(method("GET"))
        .and(path("/info"))
        .respond_with(ok(
            json!({"version": "1.5-rolling", "hostname": "r1", "banner": ""}),
        ))
        .mount(api.server())
        .await;
    Mock::given(method("GET"))
        .and(path("/openapi.json"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openapi_doc(true)))
        .mount(api.server())
        .await;
}

/// The part of `GET /openapi.json` the client reads, as FastAPI generates it from the route
/// `configure_op(data: Union[ConfigureModel, ConfigureListModel], …)` (vyos-1x `routers.py`;
/// `sagitta`'s `src/services/vyos-http-api-server` alike): the request body is an `anyOf` of
/// `$ref`s into `components.schemas`, one object schema per pydantic model, with a property per
/// declared field. `confirm_time: StrictInt = 0` (PR #4533) appears only where it is declared.
pub fn openapi_doc(confirm_time: bool) -> Value {
    let mut list = json!({
        "properties": {
            "key": {"type": "string", "title": "Key"},
            "commands": {"items": {"$ref": "#/components/schemas/BaseConfigureModel"}, "type": "array", "title": "Commands"}
        },
        "type": "object",
        "required": ["key", "commands"],
        "title": "ConfigureListModel"
    });
    if confirm_time {
        list["properties"]["confirm_time"] =
            json!({"type": "integer", "title": "Confirm Time", "default": 0});
    }
    json!({
        "openapi": "3.1.0",
        "info": {"title": "VyOS API", "version": "0.1.0"},
        "paths": {
            "/configure": {"post": {
                "summary": "Configure Op",
                "operationId": "configure_op_configure_post",
                "requestBody": {
                    "content": {"application/json": {"schema": {
                        "anyOf": [
                            {"$ref": "#/components/schemas/ConfigureModel"},
                            {"$ref": "#/components/schemas/ConfigureListModel"}
                        ],
                        "title": "Data"
                    }}},
                    "required": true
                }
            }},
            // `config_file_op(data: ConfigFileModel, …)`: the model of the builds between PR
            // #4530 (inline `string`, `merge`) and PR #4574 (`destructive`), whose merge helper
            // migrates and sets each changed leaf, as this fake's merge does.
            "/config-file": {"post": {"requestBody": {"content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/ConfigFileModel"}
            }}, "required": true}}}
        },
        "components": {"schemas": {
            "ConfigFileModel": {
                "properties": {
                    "key": {"type": "string", "title": "Key"},
                    "op": {"type": "string", "title": "Op"},
                    "file": {"type": "string", "title": "File"},
                    "string": {"type": "string", "title": "String"},
                    "confirm_time": {"type": "integer", "title": "Confirm Time", "default": 0}
                },
                "type": "object",
                "required": ["key", "op"],
                "title": "ConfigFileModel"
            },
            "ConfigureListModel": list,
            "ConfigureModel": {
                "properties": {
                    "key": {"type": "string", "title": "Key"},
                    "op": {"type": "string", "title": "Op"},
                    "path": {"items": {"type": "string"}, "type": "array", "title": "Path"},
                    "value": {"type": "string", "title": "Value"}
                },
                "type": "object",
                "required": ["key", "op", "path"],
                "title": "ConfigureModel"
            }
        }}
    })
}

/// VyOS's success answer (`models.success`): JSON in an `HTMLResponse`, so `text/html`.
pub fn ok(data: Value) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("content-type", "text/html; charset=utf-8")
        .set_body_string(json!({"success": true, "data": data, "error": null}).to_string())
}

/// VyOS 1.5's error answer (`error()` in vyos-1x `src/services/api/rest/models.py`): the message
/// HTML-escaped (`escape(msg, quote=False)`), `text/html`.
pub fn err(status: u16, message: &str) -> ResponseTemplate {
    let escaped = message
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    err_as_written(status, &escaped)
}

/// VyOS 1.4's error answer (`error()` in vyos-1x `src/services/vyos-http-api-server`, branch
/// `sagitta`): the message as it is, `text/html`.
pub fn err_as_written(status: u16, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status)
        .insert_header("content-type", "text/html; charset=utf-8")
        .set_body_string(json!({"success": false, "data": null, "error": message}).to_string())
}

/// The path of the `vyos` user's plaintext password in VyOS's own default configuration.
pub const PLAINTEXT_PASSWORD: &[&str] = &[
    "system",
    "login",
    "user",
    "vyos",
    "authentication",
    "plaintext-password",
];

/// A fixture file of `tests/fixtures/show` (texts of operational `show` commands).
pub fn show_fixture(name: &str) -> String {
    let path = format!("{FIXTURES}/show/{name}");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `show bgp vrf all summary`: `bgp_show_all_instances_summary_vty` (FRRouting
/// `bgpd/bgp_vty.c`) runs `bgp_show_summary_afi_safi` for each instance, the default first
/// (the `bgp-summary-frr*.txt` fixture); FRR 10 heads each family `\n%s Summary:\n` and names
/// the instance on the router-id line (`name_pretty`, `VRF blue`, `bgpd/bgpd.c` `bgp_create`),
/// FRR 9.1 in the heading (`\n%s Summary (%s):\n`, no VRF on the router-id line); an instance
/// without neighbors prints `% No BGP neighbors found in VRF red`. VRF blue's one neighbor is
/// Established (its prefixes counted) or, `blue_up` false, `Active` since its reset 3 s ago
/// (`bgp_show_summary`: `peer_uptime`, then `lookup_msg(bgp_status_msg, …)`).
pub fn bgp_vrf_all_summary(frr10: bool, blue_up: bool) -> String {
    let (default, heading, id_line) = if frr10 {
        (
            "bgp-summary-frr10.txt",
            "IPv4 Unicast Summary:",
            "BGP router identifier 10.1.0.1, local AS number 65010 VRF blue vrf-id 5",
        )
    } else {
        (
            "bgp-summary-frr9.1.txt",
            "IPv4 Unicast Summary (VRF blue):",
            "BGP router identifier 10.1.0.1, local AS number 65010 vrf-id 5",
        )
    };
    let row = if blue_up {
        "10.1.0.2        4      65101        50        52        3    0    0 00:24:10            2        1 N/A"
    } else {
        "10.1.0.2        4      65101        50        52        0    0    0 00:00:03       Active        0 N/A"
    };
    format!(
        "{}
{heading}
{id_line}
BGP table version 3
RIB entries 3, using 576 bytes of memory
Peers 1, using 20 KiB of memory

Neighbor        V         AS   MsgRcvd   MsgSent   TblVer  InQ OutQ  Up/Down State/PfxRcd   PfxSnt Desc
{row}

Total number of neighbors 1
% No BGP neighbors found in VRF red
",
        show_fixture(default)
    )
}

/// A fixture file of `tests/fixtures/vyos-configs`.
pub fn config_fixture(name: &str) -> String {
    let path = format!("{FIXTURES}/vyos-configs/{name}");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

// ---------------------------------------------------------------------------------------------
// A fake VyOS router with two version profiles.
//
// Its request models follow the pydantic models of the real servers field by field:
// - 1.4: vyos-1x branch `sagitta`, `src/services/vyos-http-api-server`: `ConfigureListModel`
//   {key: StrictStr, commands: [BaseConfigureModel {op, path (non-empty), value}]}, no
//   `confirm_time` (pydantic v1 ignores unknown fields: the batch is committed for good);
//   `ConfigFileModel` {key, op, file}; `config_file_op` knows `save` and `load` (with a `file`)
//   and answers 400 "'OP' is not a valid operation" otherwise; no `/info` (FastAPI's 404).
// - 1.5: vyos-1x `src/services/api/rest/models.py` and `routers.py`: `ConfigureListModel` adds
//   `confirm_time: StrictInt = 0`; `ConfigFileModel` adds `string`, `confirm_time`,
//   `destructive`, and ops `merge` and `confirm`; `commit_confirm` answers "Initialized
//   commit-confirm; N minutes to confirm before reboot" (`python/vyos/config_mgmt.py`),
//   `confirm` "Reboot timer stopped" or "No confirm pending"; `GET /info`.
// Both: a batch that changes `service https` is answered with `self_ref_msg` and committed in a
// background task whose failure is only logged (`call_commit`; on 1.5 with `confirm_time`,
// `call_commit_confirm`, which then starts the timer); showConfig `raw` answers the
// configuration with a blank first column (vyatta-cfg `src/cnode/cnode-algorithm.cpp`); `show
// system commit file 0` answers the archived config.boot with its footer.
// ---------------------------------------------------------------------------------------------

use std::sync::{Arc, Mutex};

use cpps_vyos::config::{Command as VCommand, ConfigTree};

/// Which server the fake imitates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// VyOS 1.4 (sagitta).
    V14,
    /// VyOS 1.5 (current).
    V15,
}

/// The fake router's state, shared with the test.
#[derive(Debug)]
pub struct RouterState {
    pub running: ConfigTree,
    pub saved: ConfigTree,
    pub confirm_pending: Option<u32>,
    /// Requests received: (path, JSON body).
    pub requests: Vec<(String, Value)>,
    /// Whether the background commit of a `service https` change fails (and is dropped).
    pub https_commit_fails: bool,
    /// The footer of the archived config.boot; `None`: no commit archive.
    pub footer: Option<String>,
    /// A priority subtree whose commit fails (its commit script exits non-zero): the rest of
    /// the batch is committed, as vyatta-cfg does.
    pub failing_subtree: Option<Vec<String>>,
    /// Whether the last inline `load`/`merge` had no version footer, so that VyOS's
    /// `python/vyos/migrate.py` ran every migration from version 0 on it.
    pub migrated_from_zero: bool,
    /// The action the commit-confirm answer names (`… to confirm before ACTION`): `reboot` as
    /// builds before vyos-1x T5976 always do; `reload` as `current`'s `ConfigMgmt.__init__` says
    /// whatever the configuration holds (`python/vyos/config_mgmt.py`: `d.get('commit_confirm')
    /// == 'reboot'` compares the dict `{'action': …}` of `get_config_dict(with_defaults=True)`).
    pub answers_action: String,
    /// Whether `save` fails (a full disk, say): `save_config` exits non-zero and the API answers
    /// 400 with its output.
    pub save_fails: bool,
    /// Whether `/openapi.json` shows `confirm_time` in `/configure` (and the server honours it):
    /// 1.5 after PR #4533; a 1.5 rolling build between PR #4380 (`/info`) and PR #4533 has
    /// `/info` and no `confirm_time`.
    pub confirm_time: bool,
    /// Whether the server is the first commit-confirm `_configure_op` of vyos-1x
    /// `src/services/api/rest/routers.py`, which calls `session.commit_confirm()` (arming the
    /// timer) BEFORE `session.commit()`; later builds commit first (`run_commit_confirm`).
    pub timer_before_commit: bool,
    /// Whether the router runs the vyconf backend: `ConfigSession.commit_confirm` and
    /// `confirm` (`python/vyos/configsession.py`) then return the text `unimplemented`, the
    /// commit is made for good and no timer is armed.
    pub vyconf_backend: bool,
    /// WireGuard peers whose tunnel is down: their summary shows no handshake.
    pub stale_peers: Vec<String>,
    /// WireGuard peers whose last handshake the test sets (name, seconds ago), over
    /// [`printers::live_state`]; the fake's clock does not move, so the age printed stays.
    pub handshake_ago: Vec<(String, u64)>,
    /// What [`RouterState::handshake_ago`] becomes at the next commit: the ages the checks
    /// after the settle read (an idle tunnel whose handshake only grew older).
    pub handshake_ago_after_commit: Option<Vec<(String, u64)>>,
    /// Another fake router whose WireGuard peer (the name) loses its tunnel when this one
    /// commits a change below `interfaces wireguard` (the two ends of one tunnel).
    pub tunnel_to: Option<(Arc<Mutex<RouterState>>, String)>,
    /// A status nginx answers a `/configure` with, in its own HTML page, after the API went on
    /// with the write (`proxy_read_timeout 600` ran out: 504; the API restarted: 502).
    pub gateway_status: Option<u16>,
    /// The `show vrrp` table (`VRRP.format`, vyos-1x `python/vyos/ifconfig/vrrp.py`); `None`:
    /// `VRRP not configured!`.
    pub vrrp_table: Option<String>,
    /// Whether reading WireGuard peers fails: `wg show NAME` exits 1 with "Unable to access
    /// interface: No such device" (wireguard-tools `src/show.c`) and `show_op` answers 400.
    pub wireguard_fails: bool,
    /// Whether every peer receives 1 MiB between two readings of the summary (traffic or
    /// keepalives through a working tunnel).
    pub rx_grows: bool,
    /// With `rx_grows`: the tunnel carries traffic until a `/configure` write commits and none
    /// after it (a change that killed a busy tunnel); the counter keeps what came before.
    pub rx_stops_at_commit: bool,
    /// The summary reading whose counter the commit froze (`rx_stops_at_commit`).
    pub rx_frozen_at: Option<u64>,
    /// How many WireGuard summaries were read.
    pub summary_reads: u64,
    /// Whether the API's shared configuration session holds changes a refused `load`/`merge`
    /// left: `config_file_op` (vyos-1x `src/services/api/rest/routers.py`; `sagitta`
    /// `src/services/vyos-http-api-server`) answers 400 without `session.discard()`.
    pub staged_left: bool,
    /// Node names the router's templates lack (a misspelt word): a command naming one is
    /// refused with vyatta-cfg's words, `src/cstore/cstore.cpp` `get_parsed_tmpl`:
    /// "Configuration path: [PATH VALUE] is not valid", the path's words and the value joined
    /// by spaces (`Cpath::to_string`), which `ConfigSessionError` carries into the answer.
    pub unknown_nodes: Vec<String>,
    /// Routes besides the static blackhole routes of the running configuration, which the fake
    /// adds (`protocols static route P blackhole`: FRR installs them as `unreachable
    /// (blackhole)`): (prefix, `Known via` type, next hop as `show_nexthop_detail_helper`
    /// prints it after the status character).
    pub routes: Vec<(String, String, String)>,
    /// The neighbour tables (`ip --json neighbor list`): (address, interface, link-layer
    /// address, state).
    pub neighbours: Vec<(String, String, String, String)>,
    /// Whether `show arp` fails: `neighbor.py` raises (an interface gone) and exits 1, which
    /// `show_op` answers 400.
    pub neighbours_fail: bool,
    /// Whether a commit makes `show arp` fail from then on (a change that takes down the
    /// interface the table is read from).
    pub neighbours_fail_after_commit: bool,
    /// The version of the image the router runs, when the test changed it (an `/image add`
    /// and a reboot into it): `show version` and `/info` name it.
    pub image_version: Option<String>,
    /// With [`RouterState::gateway_status`]: the commit is still running when nginx answers,
    /// so the change is not live yet; it lands when the test applies `landing_later`.
    pub commit_still_running: bool,
    /// The configuration a commit still running will leave.
    pub landing_later: Option<ConfigTree>,
    /// Routes that replace [`RouterState::routes`] at the next commit (a change that drops
    /// the route learned over a tunnel, so FRR falls back to a shorter prefix).
    pub routes_after_commit: Option<Vec<(String, String, String)>>,
    /// Whether `system config-management commit-revisions` is set. Without it
    /// `show_commit_log` (vyos-1x `src/op_mode/config_mgmt.py`, both branches) prints
    /// "commit-revisions is not configured;\ncommit log is empty or stale:\n\n" before the
    /// log (`ConfigMgmt.max_revisions == 0`), and the archive is no longer written.
    pub commit_revisions: bool,
    /// Whether VRF blue's BGP session is down ([`bgp_vrf_all_summary`]).
    pub vrf_bgp_down: bool,
    /// Whether the next commit takes VRF blue's BGP session down.
    pub vrf_bgp_down_after_commit: bool,
    /// How many of the next `GET /openapi.json` are answered by nginx's own 503 page (the API
    /// restarting, or nginx's `limit_req`); the schema is served again after them.
    pub openapi_unavailable: u32,
    /// What [`RouterState::openapi_unavailable`] becomes at the next commit.
    pub openapi_unavailable_after_commit: u32,
    /// The hops (host, `Loss%`) `POST /traceroute` reports, on a later 1.5 build that has it
    /// (vyos-1x PR #4151: `/openapi.json` then lists the path); `None`: no such route.
    pub trace_hubs: Option<Vec<(String, f64)>>,
    /// Hops that replace [`RouterState::trace_hubs`] at the next commit.
    pub trace_hubs_after_commit: Option<Vec<(String, f64)>>,
    /// How many of the next `POST /traceroute` lose their one probe at the target: mtr's one
    /// cycle (`--report-cycles 1`) then ends with `???` at 100 % loss.
    pub trace_lost: u32,
    /// `show file /config/config.boot` fails (`file.py`: "File or directory … not found.").
    pub saved_unreadable: bool,
    /// Another API client's batch, committed right after this client's next commit that
    /// lands (in full or in part): vyos-1x `src/services/api/rest/routers.py` `_configure_op`
    /// holds the API's lock only for one request's own session and commit, so another
    /// client's `/configure` may commit between two of this client's requests.
    pub others_commit: Option<Vec<VCommand>>,
}

/// What `POST /traceroute` answers: vyos-1x `python/vyos/configsession.py` `traceroute` runs
/// `src/op_mode/mtr_execute.py mtr --for-api --report-mode --report-cycles 1 --json --host
/// HOST`, which `loads` mtr's JSON and `print`s the dict, so the API answers Python's `repr`
/// of it. mtr `ui/report.c` `json_close`: `report` {`mtr` {src, dst, tos, tests, psize,
/// bitpattern}, `hubs` [{count, host, then the default fields `LS NABWV`: Loss%, Snt, Last,
/// Avg, Best, Wrst, StDev}]}, in that order; `???` for a hop that did not answer.
pub fn mtr_for_api(dst: &str, hubs: &[(String, f64)]) -> String {
    let hops: Vec<String> = hubs
        .iter()
        .enumerate()
        .map(|(i, (host, loss))| {
            let ms = if *loss < 100.0 { 0.52 } else { 0.0 };
            format!(
                "{{'count': {}, 'host': '{host}', 'Loss%': {loss:?}, 'Snt': 1, 'Last': {ms:?}, 'Avg': {ms:?}, 'Best': {ms:?}, 'Wrst': {ms:?}, 'StDev': 0.0}}",
                i + 1
            )
        })
        .collect();
    format!(
        "{{'report': {{'mtr': {{'src': 'vyos', 'dst': '{dst}', 'tos': 0, 'tests': 1, 'psize': '64', 'bitpattern': '0x00'}}, 'hubs': [{}]}}}}\n",
        hops.join(", ")
    )
}

/// nginx's own error page for `status` (`ngx_http_error_502_page` / `ngx_http_error_504_page`
/// with `ngx_http_error_tail` in nginx `src/http/ngx_http_special_response.c`), `text/html`.
pub fn nginx_page(status: u16) -> ResponseTemplate {
    let title = match status {
        502 => "502 Bad Gateway",
        503 => "503 Service Temporarily Unavailable",
        504 => "504 Gateway Time-out",
        _ => "500 Internal Server Error",
    };
    ResponseTemplate::new(status)
        .insert_header("content-type", "text/html")
        .set_body_string(format!(
            "<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n<center><h1>{title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
        ))
}

/// The fake router.
#[derive(Clone)]
pub struct FakeRouter {
    pub profile: Profile,
    pub state: Arc<Mutex<RouterState>>,
}

pub const FOOTER: &str = "// Warning: Do not remove the following line.\n// vyos-config-version: \"bgp@5:https@6:interfaces@32:system@27\"\n// Release version: 1.4.0\n";

impl FakeRouter {
    pub fn new(profile: Profile, running: ConfigTree) -> Self {
        Self {
            profile,
            state: Arc::new(Mutex::new(RouterState {
                saved: running.clone(),
                running,
                confirm_pending: None,
                requests: Vec::new(),
                https_commit_fails: false,
                footer: Some(FOOTER.to_owned()),
                failing_subtree: None,
                migrated_from_zero: false,
                answers_action: "reboot".to_owned(),
                save_fails: false,
                confirm_time: profile == Profile::V15,
                timer_before_commit: false,
                vyconf_backend: false,
                stale_peers: Vec::new(),
                handshake_ago: Vec::new(),
                tunnel_to: None,
                gateway_status: None,
                vrrp_table: None,
                wireguard_fails: false,
                rx_grows: false,
                rx_stops_at_commit: false,
                rx_frozen_at: None,
                summary_reads: 0,
                staged_left: false,
                unknown_nodes: Vec::new(),
                routes: vec![(
                    "0.0.0.0/0".to_owned(),
                    "static".to_owned(),
                    "192.0.2.1, via eth0, weight 1".to_owned(),
                )],
                neighbours: vec![(
                    "192.0.2.1".to_owned(),
                    "eth0".to_owned(),
                    "00:53:00:00:00:01".to_owned(),
                    "REACHABLE".to_owned(),
                )],
                neighbours_fail: false,
                neighbours_fail_after_commit: false,
                image_version: None,
                commit_still_running: false,
                landing_later: None,
                routes_after_commit: None,
                saved_unreadable: false,
                commit_revisions: true,
                vrf_bgp_down: false,
                vrf_bgp_down_after_commit: false,
                openapi_unavailable: 0,
                openapi_unavailable_after_commit: 0,
                trace_hubs: None,
                trace_hubs_after_commit: None,
                trace_lost: 0,
                handshake_ago_after_commit: None,
                others_commit: None,
            })),
        }
    }

    /// Serves the fake on a fresh mock server and gives a client of it.
    pub async fn start(self) -> (MockApi, Client, FakeRouter) {
        let api = MockApi::start("").await;
        Mock::given(wiremock::matchers::any())
            .respond_with(self.clone())
            .with_priority(1)
            .mount(api.server())
            .await;
        let client = Client::new(api.client(), cpps_vyos::SecretString::from(KEY.to_owned()));
        (api, client, self)
    }

    pub fn requests_to(&self, path: &str) -> Vec<Value> {
        self.state
            .lock()
            .unwrap()
            .requests
            .iter()
            .filter(|(p, _)| p == path)
            .map(|(_, b)| b.clone())
            .collect()
    }

    pub fn running(&self) -> ConfigTree {
        self.state.lock().unwrap().running.clone()
    }

    /// This profile's error answer: escaped by 1.5 ([`err`]), as written by 1.4
    /// ([`err_as_written`]).
    fn err(&self, status: u16, message: &str) -> ResponseTemplate {
        match self.profile {
            Profile::V14 => err_as_written(status, message),
            Profile::V15 => err(status, message),
        }
    }
}

/// A pydantic validation failure, answered as the servers' `validation_exception_handler` does
/// (through `error()` in both versions: escaped by 1.5, as written by 1.4). The fake's texts hold
/// no `&`, `<` or `>`, so they read the same either way.
fn invalid(msg: &str) -> ResponseTemplate {
    err(400, msg)
}

fn str_field<'a>(body: &'a Value, name: &str) -> Result<Option<&'a str>, ResponseTemplate> {
    match body.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(invalid(&format!(
            "{{'loc': ('body', '{name}'), 'msg': 'str type expected'}}"
        ))),
    }
}

fn path_field(body: &Value) -> Result<Vec<String>, ResponseTemplate> {
    match body.get("path") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| invalid("{'loc': ('body', 'path'), 'msg': 'str type expected'}"))
            })
            .collect(),
        _ => Err(invalid(
            "{'loc': ('body', 'path'), 'msg': 'field required'}",
        )),
    }
}

impl FakeRouter {
    /// `/configure` (vyos-1x `_configure_op`, `src/services/api/rest/routers.py`): the commands
    /// staged on a copy of the running tree, then committed as the state says the commit goes.
    fn configure(&self, body: &Value) -> ResponseTemplate {
        let Some(Value::Array(cmds)) = body.get("commands") else {
            return invalid("{'loc': ('body', 'commands'), 'msg': 'field required'}");
        };
        let confirm_time = match self.confirm_time(body) {
            Ok(minutes) => minutes,
            Err(e) => return e,
        };
        {
            // The traffic up to the commit shows at the next reading, none after it.
            let mut st = self.state.lock().unwrap();
            if st.rx_stops_at_commit && st.rx_frozen_at.is_none() {
                st.rx_frozen_at = Some(st.summary_reads + 1);
            }
        }
        let mut working = self.running();
        let mut https = false;
        for c in cmds {
            match self.stage(c, &mut working) {
                Ok(below_https) => https |= below_https,
                Err(e) => return e,
            }
        }
        // 1.5's `_configure_op` (`routers.py`): a change below `service https` is committed, and
        // its timer started, in a background task (`call_commit_confirm`, failures only logged)
        // after the answer `self_ref_msg`; otherwise `run_commit_confirm` commits first and then
        // starts the timer, whose refusal ("Another confirm is pending", exit 1 of `config-mgmt
        // commit_confirm` in `python/vyos/config_mgmt.py`) is answered 400 with the change
        // committed.
        if https {
            return self.commit_https_later(working, confirm_time);
        }
        let mut st = self.state.lock().unwrap();
        if st.vyconf_backend && confirm_time > 0 {
            st.running = working;
            return ok(json!("unimplemented"));
        }
        // The first commit-confirm `_configure_op`: the timer is armed, then the commit runs;
        // a failed commit is answered 400 and nothing disarms the timer.
        let armed_first = st.timer_before_commit && confirm_time > 0;
        if armed_first {
            if st.confirm_pending.is_some() {
                return self.err(400, "Another confirm is pending\n");
            }
            st.confirm_pending = Some(confirm_time);
        }
        if let Some(failed) = self.commit_failing_subtree(&mut st, cmds) {
            return failed;
        }
        if let (Some(status), true) = (st.gateway_status, st.commit_still_running) {
            st.landing_later = Some(working);
            return nginx_page(status);
        }
        hash_write_only(&mut working, st.requests.len());
        st.running = working;
        after_commit(&mut st, cmds);
        if let Some(status) = st.gateway_status {
            return nginx_page(status);
        }
        if confirm_time == 0 {
            return ok(Value::Null);
        }
        if !armed_first {
            if st.confirm_pending.is_some() {
                return self.err(400, "Another confirm is pending\n");
            }
            st.confirm_pending = Some(confirm_time);
        }
        ok(json!(format!(
            "\nInitialized commit-confirm; {confirm_time} minutes to confirm before {}\n",
            st.answers_action
        )))
    }

    /// The `confirm_time` of a `/configure` body, 0 where the model has none, or the answer to
    /// a value that is not an integer.
    fn confirm_time(&self, body: &Value) -> Result<u32, ResponseTemplate> {
        // 1.4's model has no confirm_time, nor has 1.5's before PR #4533: pydantic drops the
        // field.
        let declared = self.state.lock().unwrap().confirm_time;
        match (self.profile, body.get("confirm_time")) {
            (Profile::V15, _) if !declared => Ok(0),
            (Profile::V15, Some(Value::Number(n))) => Ok(n.as_u64().unwrap_or(0) as u32),
            (Profile::V15, Some(Value::Null) | None) | (Profile::V14, _) => Ok(0),
            (Profile::V15, Some(_)) => Err(invalid(
                "{'loc': ('body', 'confirm_time'), 'msg': 'Input should be a valid integer'}",
            )),
        }
    }

    /// Stages one command `c` of a `/configure` body on `working`: whether its path is below
    /// `service https`, or the answer that refuses it.
    fn stage(&self, c: &Value, working: &mut ConfigTree) -> Result<bool, ResponseTemplate> {
        let op = match str_field(c, "op")? {
            Some(op) => op.to_owned(),
            None => {
                return Err(invalid(
                    "{'loc': ('body', 'commands', 'op'), 'msg': 'field required'}",
                ));
            }
        };
        let path = match path_field(c) {
            Ok(p) if !p.is_empty() => p,
            Ok(_) => return Err(invalid("{'msg': 'path must be non-empty'}")),
            Err(e) => return Err(e),
        };
        let value = str_field(c, "value")?.map(str::to_owned);
        let https = path.first().map(String::as_str) == Some("service")
            && path.get(1).map(String::as_str) == Some("https");
        let cmd = match op.as_str() {
            "set" => VCommand::set(path.clone(), value.as_deref()),
            "delete" => VCommand::delete(path.clone(), value.as_deref()),
            "comment" => VCommand::comment(path.clone(), value.as_deref().unwrap_or("")),
            // `_configure_op` raises `ConfigSessionError` in its loop, whose handler calls
            // `session.discard()`: the shared session is clean again.
            other => {
                self.state.lock().unwrap().staged_left = false;
                return Err(self.err(400, &format!("'{other}' is not a valid operation")));
            }
        };
        if path
            .iter()
            .any(|w| self.state.lock().unwrap().unknown_nodes.contains(w))
        {
            let words: Vec<&str> = path
                .iter()
                .map(String::as_str)
                .chain(value.as_deref())
                .collect();
            return Err(self.err(
                400,
                &format!("Configuration path: [{}] is not valid\n", words.join(" ")),
            ));
        }
        if let Err(e) = working.apply(&cmd) {
            return Err(self.err(
                400,
                &format!("Configuration path: [{}] is not valid\n{e}", path.join(" ")),
            ));
        }
        Ok(https)
    }

    /// A change below `service https`: `working` lands, and its timer of `confirm_time`
    /// minutes is armed, 300 ms after the answer, unless the state says that commit fails.
    fn commit_https_later(&self, working: ConfigTree, confirm_time: u32) -> ResponseTemplate {
        let state = self.state.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            let mut st = state.lock().unwrap();
            if !st.https_commit_fails {
                st.running = working;
                if confirm_time > 0 && st.confirm_pending.is_none() {
                    st.confirm_pending = Some(confirm_time);
                }
            }
        });
        ok(json!(
            "Requested HTTP API server configuration change; commit will be called in the background"
        ))
    }

    /// The answer to a commit that touches the state's failing subtree, after the commands
    /// `cmds` outside it landed; `None` when there is no such subtree or no command below it.
    fn commit_failing_subtree(
        &self,
        st: &mut RouterState,
        cmds: &[Value],
    ) -> Option<ResponseTemplate> {
        // vyatta-cfg `src/commit/commit-algorithm.cpp`: each priority subtree is committed on its
        // own (`_commit_exec_prio_subtree`); one that fails prints `[[PATH]] failed`, the rest
        // stay committed, and the commit ends with `Commit failed` and a non-zero exit, which
        // `session.commit()` (`python/vyos/configsession.py` `__run_command`) raises as
        // `ConfigSessionError` and `_configure_op` answers 400 after `session.discard()`.
        let failing = st.failing_subtree.clone()?;
        let under = |c: &Value| {
            path_field(c)
                .is_ok_and(|p| p.len() >= failing.len() && p[..failing.len()] == failing[..])
        };
        if !cmds.iter().any(under) {
            return None;
        }
        for c in cmds.iter().filter(|c| !under(c)) {
            let path = path_field(c).unwrap_or_default();
            let value = str_field(c, "value").ok().flatten();
            let cmd = match str_field(c, "op").ok().flatten() {
                Some("delete") => VCommand::delete(path, value),
                _ => VCommand::set(path, value),
            };
            let _ = st.running.apply(&cmd);
        }
        others_commit(st);
        Some(self.err(
            400,
            &format!("[[{}]] failed\nCommit failed\n", failing.join(" ")),
        ))
    }
}

/// Commits another client's batch ([`RouterState::others_commit`]), once.
fn others_commit(st: &mut RouterState) {
    for c in st.others_commit.take().unwrap_or_default() {
        let _ = st.running.apply(&c);
    }
}

/// What a landed commit of `cmds` changes besides the running tree: the answers the test set
/// for after the commit, and the far end of a WireGuard tunnel this commit touched.
fn after_commit(st: &mut RouterState, cmds: &[Value]) {
    others_commit(st);
    st.openapi_unavailable += std::mem::take(&mut st.openapi_unavailable_after_commit);
    st.neighbours_fail |= st.neighbours_fail_after_commit;
    st.vrf_bgp_down |= st.vrf_bgp_down_after_commit;
    if let Some(routes) = st.routes_after_commit.take() {
        st.routes = routes;
    }
    if let Some(hubs) = st.trace_hubs_after_commit.take() {
        st.trace_hubs = Some(hubs);
    }
    if let Some(ages) = st.handshake_ago_after_commit.take() {
        st.handshake_ago = ages;
    }
    let wireguard = cmds.iter().any(|c| {
        path_field(c).is_ok_and(|p| p.len() > 1 && p[0] == "interfaces" && p[1] == "wireguard")
    });
    if let (true, Some((other, peer))) = (wireguard, &st.tunnel_to) {
        other.lock().unwrap().stale_peers.push(peer.clone());
    }
}

impl FakeRouter {
    fn config_file(&self, body: &Value) -> ResponseTemplate {
        let op = match str_field(body, "op") {
            Ok(Some(op)) => op.to_owned(),
            Ok(None) => return invalid("{'loc': ('body', 'op'), 'msg': 'field required'}"),
            Err(e) => return e,
        };
        let file = str_field(body, "file").ok().flatten().map(str::to_owned);
        let mut st = self.state.lock().unwrap();
        match (self.profile, op.as_str()) {
            (_, "save") if st.save_fails => self.err(
                400,
                "Failed to save configuration: No space left on device\n",
            ),
            (_, "save") => {
                st.saved = st.running.clone();
                let target = file.unwrap_or_else(|| "/config/config.boot".to_owned());
                ok(json!(format!(
                    "Saving configuration to '{target}'...\nDone\n"
                )))
            }
            (Profile::V15, "confirm") if st.vyconf_backend => ok(json!("unimplemented")),
            (Profile::V15, "confirm") => match st.confirm_pending.take() {
                Some(_) => ok(json!("Reboot timer stopped\n")),
                None => ok(json!("No confirm pending")),
            },
            (Profile::V15, "load" | "merge") => {
                let Some(text) = str_field(body, "string").ok().flatten() else {
                    return self.err(400, "Missing required field \"file | string\"");
                };
                // `vyos-load-config.py` / `vyos-merge-config.py` read the text with vyos1x-config
                // (`vyos1x`), after `ConfigMigrate` (`python/vyos/migrate.py`), which migrates a
                // text without footer from version 0.
                st.migrated_from_zero = !text.contains("// vyos-config-version:");
                let Ok(commands) = vyos1x::parse(text) else {
                    return self.err(400, "Failed to parse specified config file");
                };
                let mut tree = if op == "load" {
                    ConfigTree::default()
                } else {
                    st.running.clone()
                };
                for c in &commands {
                    if tree.apply(c).is_err() {
                        return self.err(400, "Failed to parse specified config file");
                    }
                }
                // vyatta-cfg commits each priority subtree on its own; `config_file_op` answers
                // the failure 400 and leaves the rest staged in the shared session.
                if let Some(failing) = st.failing_subtree.clone() {
                    let base = if op == "load" {
                        ConfigTree::default()
                    } else {
                        st.running.clone()
                    };
                    let mut kept = base;
                    let mut failed = false;
                    for c in &commands {
                        if c.path.len() >= failing.len() && c.path[..failing.len()] == failing[..] {
                            failed = true;
                        } else {
                            let _ = kept.apply(c);
                        }
                    }
                    if failed {
                        st.running = kept;
                        st.staged_left = true;
                        return self.err(
                            400,
                            &format!("[[{}]] failed\nCommit failed\n", failing.join(" ")),
                        );
                    }
                }
                st.running = tree;
                let minutes = body
                    .get("confirm_time")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                // `config_file_op` commits as `_configure_op` does (`run_commit_confirm`).
                if minutes > 0 {
                    if st.confirm_pending.is_some() {
                        return self.err(400, "Another confirm is pending\n");
                    }
                    st.confirm_pending = Some(minutes as u32);
                    return ok(json!(format!(
                        "\nInitialized commit-confirm; {minutes} minutes to confirm before {}\n",
                        st.answers_action
                    )));
                }
                ok(Value::Null)
            }
            (Profile::V14, "load") if file.is_some() => ok(Value::Null),
            (Profile::V14, "load") => self.err(400, "Missing required field \"file\""),
            (_, other) => self.err(400, &format!("'{other}' is not a valid operation")),
        }
    }

    fn retrieve(&self, body: &Value) -> ResponseTemplate {
        let op = str_field(body, "op")
            .ok()
            .flatten()
            .unwrap_or("")
            .to_owned();
        let path = match path_field(body) {
            Ok(p) => p,
            Err(e) => return e,
        };
        let st = self.state.lock().unwrap();
        match op.as_str() {
            "showConfig" => ok(json!(st.running.to_show_config_string())),
            "returnValue" => ok(st.running.value(&path).map_or(Value::Null, |v| json!(v))),
            "returnValues" => ok(json!(st.running.values(&path))),
            "exists" => ok(json!(st.running.exists(&path))),
            other => self.err(400, &format!("'{other}' is not a valid operation")),
        }
    }

    /// `show version`: the image the test installed, else the profile's release.
    fn version_text(&self, st: &RouterState) -> String {
        if let Some(image) = &st.image_version {
            return format!("Version:          VyOS {image}\n");
        }
        match self.profile {
            Profile::V14 => "Version:          VyOS 1.4.0\nRelease train:    sagitta\n\nBuilt by:         autobuild@vyos.net\n",
            Profile::V15 => "Version:          VyOS 2025.01.10-0020-rolling\nRelease train:    current\n",
        }
        .to_owned()
    }

    fn show(&self, body: &Value) -> ResponseTemplate {
        let path = match path_field(body) {
            Ok(p) => p,
            Err(e) => return e,
        };
        let mut st = self.state.lock().unwrap();
        if path.last().map(String::as_str) == Some("summary") {
            st.summary_reads += 1;
        }
        match path
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice()
        {
            ["version"] => ok(json!(self.version_text(&st))),
            // `vtysh -c` (vyos-1x `src/op_mode/vtysh_wrapper.sh`): VyOS 1.4 runs FRR 9.1, 1.5
            // FRR 10, whose summaries differ in the heading and the router-id line.
            ["bgp", "summary"] => ok(json!(show_fixture(match self.profile {
                Profile::V14 => "bgp-summary-frr9.1.txt",
                Profile::V15 => "bgp-summary-frr10.txt",
            }))),
            ["bgp", "vrf", "all", "summary"] => ok(json!(bgp_vrf_all_summary(
                self.profile == Profile::V15,
                !st.vrf_bgp_down
            ))),
            // vyos-1x `src/op_mode/ipsec.py`: without IPsec it prints `IPsec not initialized`
            // and exits 1, which `show_op` answers 400 (`ConfigSessionError`).
            ["vpn", "ipsec", "sa"] => self.err(400, "IPsec not initialized\n"),
            // vyos-1x `op-mode-definitions/show-interfaces-wireguard.xml.in`: `summary` runs
            // `sudo wg show NAME` on sagitta and `interfaces_wireguard.py show_summary` on
            // current; without `summary`, `interfaces.py show` prints `ip addr show` and the
            // counters (`_format_show_data`), no peer.
            // vyos-1x `src/op_mode/vrrp.py` prints this and exits 0 without VRRP groups.
            ["vrrp"] => ok(json!(
                st.vrrp_table
                    .clone()
                    .unwrap_or_else(|| "VRRP not configured!\n".to_owned())
            )),
            // `vtysh_wrapper.sh` (vyos-1x `op-mode-definitions/show-ip-route.xml.in`): FRR's
            // `show ip route ADDR`; with no route it prints `% Network not in table` and
            // returns CMD_WARNING, so vtysh exits non-zero and `show_op` answers 400.
            [family @ ("ip" | "ipv6"), "route", addr] => match route_detail(&st, family, addr) {
                Some(text) => ok(json!(text)),
                None => self.err(400, "% Network not in table\n"),
            },
            ["arp"] | ["ipv6", "neighbors"] if st.neighbours_fail => {
                self.err(400, "Interface 'eth0' does not exist in the system\n")
            }
            ["arp"] => ok(json!(neighbour_table(&st, false))),
            ["ipv6", "neighbors"] => ok(json!(neighbour_table(&st, true))),
            ["interfaces", "wireguard", _, "summary"] if st.wireguard_fails => {
                self.err(400, "Unable to access interface: No such device\n")
            }
            ["interfaces", "wireguard", name, "summary"] => match live_wireguard(&st, name) {
                Some(live) => ok(json!(match self.profile {
                    Profile::V14 => printers::wg_show(&live),
                    Profile::V15 => printers::vyos_show_interface(&live),
                })),
                None => self.err(
                    400,
                    &format!("WireGuard interface {name} is not configured\n"),
                ),
            },
            ["interfaces", "wireguard", name] => ok(json!(format!(
                "{name}: <POINTOPOINT,NOARP,UP,LOWER_UP> mtu 1420 qdisc noqueue state UNKNOWN group default qlen 1000\n    link/none \n    inet 192.168.10.1/24 brd 192.168.10.255 scope global {name}\n       valid_lft forever preferred_lft forever\n\n    RX:  bytes  packets  errors  dropped  overrun       mcast\n      12582912    10231       0        0        0           0\n    TX:  bytes  packets  errors  dropped  carrier  collisions\n       3145728     9876       0        0        0           0\n"
            ))),
            ["system", "commit"] => ok(json!(commit_log(st.commit_revisions))),
            // `config_mgmt.py show_commit_diff` (vyos-1x `src/op_mode/config_mgmt.py`, through
            // `vyos.opmode`: the text printed, exit 0) of the two revisions above: `compare`
            // checks each revision number (`_check_revision_number`) and RETURNS
            // `Invalid revision number N` with rc 1, which `ConfigMgmt.show_commit_diff`
            // drops; the two archived revisions do not differ.
            ["system", "commit", "diff", n] => ok(json!(commit_diff(n, None))),
            ["system", "commit", "file", n, "compare", m] => ok(json!(commit_diff(n, Some(m)))),
            // `show file PATH` (vyos-1x `src/op_mode/file.py` `show_locally`, piped through
            // `less -X`, which copies when its output is no terminal): FILE INFO, a blank line,
            // FILE DATA, then the file's lines.
            ["file", "/config/config.boot"] if !st.saved_unreadable => {
                let mut saved = st.saved.clone();
                saved.footer.clone_from(&st.footer);
                ok(json!(format!(
                    "########## FILE INFO ##########\nPath:\t\t/config/config.boot\nType:\t\tASCII text\nOwner:\t\troot:vyattacfg\nPermissions:\trw-rw----\nModified:\t2026-12-06 09:12:44\n\n########## FILE DATA ##########\n{}",
                    saved.to_saved_string()
                )))
            }
            ["system", "commit", "file", "0"] => match &st.footer {
                Some(f) => {
                    let mut saved = st.saved.clone();
                    saved.footer = Some(f.clone());
                    // Archived by the save script: the saved-file dialect.
                    ok(json!(saved.to_saved_string()))
                }
                None => self.err(400, "commit revision 0 not available"),
            },
            _ => self.err(400, "Invalid command"),
        }
    }
}

impl wiremock::Respond for FakeRouter {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        let path = request.url.path().trim_start_matches('/').to_owned();
        if path == "openapi.json" {
            let mut st = self.state.lock().unwrap();
            if st.openapi_unavailable > 0 {
                st.openapi_unavailable -= 1;
                return nginx_page(503);
            }
            let mut doc = openapi_doc(st.confirm_time);
            if st.trace_hubs.is_some() {
                doc["paths"]["/traceroute"] = json!({"post": {
                    "summary": "Traceroute Op",
                    "operationId": "traceroute_op_traceroute_post",
                    "requestBody": {"content": {"application/json": {"schema": {
                        "$ref": "#/components/schemas/TracerouteModel"
                    }}}, "required": true}
                }});
            }
            return ResponseTemplate::new(200).set_body_json(doc);
        }
        if path == "info" {
            return match self.profile {
                // FastAPI's answer for a route that does not exist.
                Profile::V14 => {
                    ResponseTemplate::new(404).set_body_json(json!({"detail": "Not Found"}))
                }
                Profile::V15 => ok(json!({
                    "version": self
                        .state
                        .lock()
                        .unwrap()
                        .image_version
                        .clone()
                        .unwrap_or_else(|| "2025.01.10-0020-rolling".to_owned()),
                    "hostname": self.running().host_name().unwrap_or("vyos"),
                    "banner": "Welcome to VyOS",
                })),
            };
        }
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        self.state
            .lock()
            .unwrap()
            .requests
            .push((path.clone(), body.clone()));
        if body.get("key").and_then(Value::as_str) != Some(KEY) {
            return self.err(401, "Valid API key is required");
        }
        match path.as_str() {
            "configure" => self.configure(&body),
            "config-file" => self.config_file(&body),
            "retrieve" => self.retrieve(&body),
            "show" => self.show(&body),
            "traceroute" => {
                let mut st = self.state.lock().unwrap();
                let lost = st.trace_lost > 0;
                st.trace_lost = st.trace_lost.saturating_sub(1);
                match (&st.trace_hubs, body.get("host").and_then(Value::as_str)) {
                    (Some(hubs), Some(host)) if lost => {
                        let mut hubs = hubs.clone();
                        if let Some(last) = hubs.last_mut() {
                            *last = ("???".to_owned(), 100.0);
                        }
                        ok(json!(mtr_for_api(host, &hubs)))
                    }
                    (Some(hubs), Some(host)) => ok(json!(mtr_for_api(host, hubs))),
                    _ => ResponseTemplate::new(404).set_body_json(json!({"detail": "Not Found"})),
                }
            }
            _ => ResponseTemplate::new(404).set_body_json(json!({"detail": "Not Found"})),
        }
    }
}

/// The live state of WireGuard interface `name` of `running`: its configured peers with the
/// states of [`printers::live_state`].
fn live_wireguard(st: &RouterState, name: &str) -> Option<printers::LiveInterface> {
    let iface = st
        .running
        .wireguard()
        .ok()?
        .into_iter()
        .find(|i| i.name == name)?;
    Some(printers::LiveInterface {
        name: iface.name.clone(),
        public_key: "cHVibGljLWtleS1vZi13ZzAtMDAwMDAwMDAwMDAwMDA=".to_owned(),
        listen_port: iface.port.unwrap_or(51820),
        description: iface.description.clone(),
        addresses: iface.addresses.clone(),
        peers: iface
            .peers
            .iter()
            .map(|p| {
                let (mut handshake_ago, rx, tx) = printers::live_state(&p.name);
                if let Some((_, ago)) = st.handshake_ago.iter().find(|(n, _)| *n == p.name) {
                    handshake_ago = Some(*ago);
                }
                if st.stale_peers.contains(&p.name) {
                    handshake_ago = None;
                }
                let rx = if st.rx_grows {
                    rx + st.summary_reads.min(st.rx_frozen_at.unwrap_or(u64::MAX)) * (1 << 20)
                } else {
                    rx
                };
                printers::LivePeer {
                    name: p.name.clone(),
                    public_key: p.public_key.clone().unwrap_or_default(),
                    preshared_key: p.preshared_key.is_some(),
                    endpoint: p.address.clone(),
                    allowed_ips: p.allowed_ips.clone(),
                    handshake_ago,
                    rx,
                    tx,
                    keepalive: p.persistent_keepalive,
                }
            })
            .collect(),
    })
}

/// Whether `addr` lies in `prefix` (`A/LEN`), and the prefix length.
fn covers(prefix: &str, addr: std::net::IpAddr) -> Option<u8> {
    let (net, len) = prefix.split_once('/')?;
    let (net, len): (std::net::IpAddr, u8) = (net.parse().ok()?, len.parse().ok()?);
    let bits = |a: std::net::IpAddr| match a {
        std::net::IpAddr::V4(v) => (u128::from(u32::from(v)) << 96, 32),
        std::net::IpAddr::V6(v) => (u128::from(v), 128),
    };
    let ((n, w1), (a, w2)) = (bits(net), bits(addr));
    let mask = if len == 0 {
        0
    } else {
        u128::MAX << (128 - u32::from(len))
    };
    (w1 == w2 && n & mask == a & mask).then_some(len)
}

/// FRR `zebra/zebra_vty.c` `vty_show_ip_route_detail` for the longest prefix covering `addr`:
/// the fake's routes and the running configuration's static blackhole routes; `None` when no
/// route covers it.
fn route_detail(st: &RouterState, family: &str, addr: &str) -> Option<String> {
    let addr: std::net::IpAddr = addr.parse().ok()?;
    if addr.is_ipv4() != (family == "ip") {
        return None;
    }
    let static_route = if addr.is_ipv4() { "route" } else { "route6" };
    let blackholes = st
        .running
        .root
        .entries(&["protocols", "static", static_route])
        .filter(|(_, b)| b.exists(&["blackhole"]))
        .map(|(p, _)| {
            (
                p.to_owned(),
                "static".to_owned(),
                "unreachable (blackhole), weight 1".to_owned(),
            )
        })
        .collect::<Vec<_>>();
    let (prefix, kind, hop) = blackholes
        .iter()
        .chain(st.routes.iter())
        .filter_map(|r| covers(&r.0, addr).map(|len| (len, r)))
        .max_by_key(|(len, _)| *len)?
        .1;
    let distance = if kind == "static" { 1 } else { 0 };
    Some(format!(
        "Routing entry for {prefix}\n  Known via \"{kind}\", distance {distance}, metric 0, best\n  Last update 00:10:00 ago\n  * {hop}\n\n"
    ))
}

/// vyos-1x `src/op_mode/neighbor.py` `format_neighbors`: `tabulate(rows, headers)` ("simple":
/// columns padded to the widest cell, two spaces apart, a line of dashes under the headers).
fn neighbour_table(st: &RouterState, ipv6: bool) -> String {
    let mut rows: Vec<[String; 4]> = vec![[
        "Address".to_owned(),
        "Interface".to_owned(),
        "Link layer address".to_owned(),
        "State".to_owned(),
    ]];
    rows.extend(
        st.neighbours
            .iter()
            .filter(|n| n.0.contains(':') == ipv6)
            .map(|n| [n.0.clone(), n.1.clone(), n.2.clone(), n.3.clone()]),
    );
    let widths: Vec<usize> = (0..4)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let line = |r: &[String; 4]| {
        r.iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect::<Vec<_>>()
            .join("  ")
    };
    let mut out = vec![line(&rows[0])];
    out.push(
        widths
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .join("  "),
    );
    out.extend(rows[1..].iter().map(line));
    out.join("\n")
}

/// `show_commit_log` (vyos-1x `src/op_mode/config_mgmt.py`) of the fake's two revisions:
/// `ConfigMgmt.format_log_data` (`tabulate(plain)` of `[N, TIME, 'by USER', 'via APP']`, then
/// `[None, COMMENT]` when the comment is not `commit`), after "commit-revisions is not
/// configured;\ncommit log is empty or stale:\n\n" when `commit_revisions` is unset.
fn commit_log(commit_revisions: bool) -> String {
    let header = if commit_revisions {
        ""
    } else {
        "commit-revisions is not configured;\ncommit log is empty or stale:\n\n"
    };
    format!(
        "{header}0  2025-01-10 10:00:00  by vyos  via vyos-http-api\n   add the uplink\n1  2025-01-09 08:15:02  by root  via cli"
    )
}

/// `ConfigMgmt.compare(rev1=n, rev2=m or n + 1)` (vyos-1x `python/vyos/config_mgmt.py`) on the
/// fake's archive of two revisions (0 and 1), as `show_commit_diff` returns it.
fn commit_diff(n: &str, m: Option<&str>) -> String {
    let Ok(n) = n.parse::<u32>() else {
        return format!("Invalid revision number {n}");
    };
    let m = m.map_or(Some(n + 1), |m| m.parse::<u32>().ok());
    match m {
        _ if n >= 2 => format!("Invalid revision number {n}"),
        Some(m) if m < 2 => format!("No changes between revisions {m} and {n} configurations.\n"),
        Some(m) => format!("Invalid revision number {m}"),
        None => "Invalid revision number".to_owned(),
    }
}

/// What VyOS does to a write-only leaf during the commit: vyos-1x
/// `src/conf_mode/system_login.py` `generate()` replaces `system login user U authentication
/// plaintext-password P` with `encrypted-password HASH` (`delete_cli_node`/`add_cli_node` on
/// current, `my_delete`/`my_set` on sagitta; a SHA-512 crypt with a fresh salt), and
/// `src/conf_mode/service_snmp.py` `generate()` does the same for `service snmp v3 user U auth`
/// and `privacy` (a hash of the password and the engine id). The fake's hash is a stand-in
/// that never holds the plaintext; `salt` makes two commits of one password differ, as
/// the login's fresh salt does.
pub fn hash_write_only(tree: &mut ConfigTree, salt: usize) {
    let users = |tree: &ConfigTree, path: &[&str]| -> Vec<String> {
        match tree.get(path) {
            Some(cpps_vyos::config::NodeRef::Tag(t)) => t.entries.keys().cloned().collect(),
            _ => Vec::new(),
        }
    };
    let mut bases: Vec<Vec<String>> = Vec::new();
    for user in users(tree, &["system", "login", "user"]) {
        bases.push(
            ["system", "login", "user", user.as_str(), "authentication"]
                .map(str::to_owned)
                .to_vec(),
        );
    }
    for user in users(tree, &["service", "snmp", "v3", "user"]) {
        for part in ["auth", "privacy"] {
            bases.push(
                ["service", "snmp", "v3", "user", user.as_str(), part]
                    .map(str::to_owned)
                    .to_vec(),
            );
        }
    }
    for base in bases {
        let plain = [base.clone(), vec!["plaintext-password".to_owned()]].concat();
        let Some(p) = tree.values(&plain).first().cloned() else {
            continue;
        };
        // `system_login.py` tests `if tmp:`, so an empty plaintext stays; `service_snmp.py`
        // tests `is not None`.
        if p.is_empty() && base[0] == "system" {
            continue;
        }
        let digest = p
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325_u64 ^ salt as u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            });
        let _ = tree.apply(&VCommand::delete(plain, None));
        let encrypted = [base, vec!["encrypted-password".to_owned()]].concat();
        let _ = tree.apply(&VCommand::set(
            encrypted,
            Some(&format!("$6$fake{salt}${digest:016x}")),
        ));
    }
}
