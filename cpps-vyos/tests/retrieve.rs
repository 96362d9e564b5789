//! `/retrieve`, `/info` and the decoding of VyOS's answers. No VyOS router can run here: wiremock
//! answers as VyOS's documents and server code say (`common` names them).

mod common;

use common::{KEY, config_fixture, err, err_as_written, ok, post, router, serve_info_1_5};
use cpps_http::test_util::MockApi;
use cpps_vyos::{ConfigFormat, Error};
use secrecy::ExposeSecret;
use serde_json::json;
use wiremock::matchers::{body_json, method, path};
use wiremock::{Mock, ResponseTemplate};

#[tokio::test]
async fn show_config_raw_is_parsed_into_a_tree() {
    let (api, client) = router().await;
    // `retrieve_op` (vyos-1x `src/services/api/rest/routers.py`; sagitta's
    // `src/services/vyos-http-api-server` alike): `configFormat: raw` answers the config.boot text
    // as a JSON string.
    post("/retrieve")
        .and(body_json(
            json!({"key": KEY, "op": "showConfig", "path": [], "configFormat": "raw"}),
        ))
        .respond_with(ok(json!(config_fixture("basic-api-service.config.boot"))))
        .expect(1)
        .mount(api.server())
        .await;
    let tree = client.config_tree().await.unwrap();
    assert_eq!(tree.host_name(), Some("vyos"));
    let keys = tree.https_api().unwrap().unwrap().keys;
    assert_eq!(keys[0].key.expose_secret(), "S3cur3");
    api.verify().await;
}

#[tokio::test]
async fn show_config_json_return_values_and_exists() {
    let (api, client) = router().await;
    // The shapes of `vyos-http-api.md`, "/retrieve".
    post("/retrieve")
        .and(body_json(json!({"key": KEY, "op": "showConfig", "path": ["system", "syslog"], "configFormat": "json"})))
        .respond_with(ok(json!({"global": {"facility": {"all": {"level": "info"}}}})))
        .mount(api.server())
        .await;
    post("/retrieve")
        .and(body_json(json!({"key": KEY, "op": "returnValues", "path": ["interfaces", "dummy", "dum0", "address"]})))
        .respond_with(ok(json!(["10.10.10.10/24", "10.10.10.11/24"])))
        .mount(api.server())
        .await;
    post("/retrieve")
        .and(body_json(
            json!({"key": KEY, "op": "exists", "path": ["service", "https", "api"]}),
        ))
        .respond_with(ok(json!(true)))
        .mount(api.server())
        .await;
    post("/retrieve")
        .and(body_json(
            json!({"key": KEY, "op": "returnValue", "path": ["system", "domain-name"]}),
        ))
        .respond_with(ok(json!(null)))
        .mount(api.server())
        .await;
    let cfg = client
        .show_config(&["system", "syslog"], ConfigFormat::Json)
        .await
        .unwrap();
    assert_eq!(cfg["global"]["facility"]["all"]["level"], "info");
    assert_eq!(
        client
            .return_values(&["interfaces", "dummy", "dum0", "address"])
            .await
            .unwrap(),
        ["10.10.10.10/24", "10.10.10.11/24"]
    );
    assert!(client.exists(&["service", "https", "api"]).await.unwrap());
    assert_eq!(
        client
            .return_value(&["system", "domain-name"])
            .await
            .unwrap(),
        None
    );
    api.assert_no_unexpected_requests();
}

#[tokio::test]
async fn errors_are_decoded_whatever_the_content_type_and_unescaped() {
    let (api, client) = router().await;
    // `error()` in vyos-1x `src/services/api/rest/models.py` (1.5): `html.escape(msg,
    // quote=False)`, status 400, `text/html`; the router known to be 1.5 by its `/info`.
    serve_info_1_5(&api).await;
    post("/show")
        .respond_with(err(400, "Invalid command: show <foo> & more"))
        .mount(api.server())
        .await;
    assert_eq!(
        client.version().await.unwrap().api,
        cpps_vyos::ApiGeneration::V15
    );
    let e = client.show(&["foo"]).await.unwrap_err();
    match &e {
        Error::Api {
            endpoint,
            status,
            message,
        } => {
            assert_eq!((*endpoint, *status), ("show", 400));
            assert_eq!(message, "Invalid command: show <foo> & more");
        }
        other => panic!("{other:?}"),
    }
    assert!(!format!("{e:?} {e}").contains(KEY));

    // 1.4's `error()` (vyos-1x `sagitta` `src/services/vyos-http-api-server`) sends the text as it
    // is, so it is not unescaped once the router is known to be 1.4: a literal `&amp;` stays.
    // While the version is not known the text is read as 1.5 writes it (the entity decoded).
    // No `/info` on 1.4 (404); `show version` names the release.
    let (_api, client) = router_without_info_refusing_foo(
        "Version:          VyOS 1.4.0\nRelease train:    sagitta\n",
    )
    .await;
    let message = |r: Result<String, Error>| match r {
        Err(Error::Api {
            status: 400,
            message,
            ..
        }) => message,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        message(client.show(&["foo"]).await),
        "Invalid command: show <foo> & more",
        "version not known yet: read as 1.5 escapes"
    );
    assert_eq!(
        client.version().await.unwrap().api,
        cpps_vyos::ApiGeneration::V14
    );
    assert_eq!(
        message(client.show(&["foo"]).await),
        "Invalid command: show <foo> &amp; more",
        "a 1.4 router's text is kept as written"
    );

    // A version that names neither generation (`ApiGeneration::Unknown`) is not known to be 1.4:
    // its text is read as 1.5 writes it.
    let (_api, client) =
        router_without_info_refusing_foo("Version:          VyOS equuleus-custom\n").await;
    assert_eq!(
        client.version().await.unwrap().api,
        cpps_vyos::ApiGeneration::Unknown
    );
    assert_eq!(
        message(client.show(&["foo"]).await),
        "Invalid command: show <foo> & more",
        "a version of neither generation: read as 1.5 escapes"
    );
}

#[tokio::test]
async fn bad_key_422_500_and_non_vyos_answers() {
    let (api, client) = router().await;
    // `auth_required` (vyos-1x `src/services/api/rest/routers.py`; sagitta's
    // `src/services/vyos-http-api-server` alike): HTTPException(401, 'Valid API key is required')
    // through `error()`.
    post("/retrieve")
        .respond_with(err(401, "Valid API key is required"))
        .mount(api.server())
        .await;
    assert!(matches!(
        client.exists(&["system"]).await,
        Err(Error::Unauthorized {
            endpoint: "retrieve"
        })
    ));

    // Same files: `MultipartRequest.body` answers 422 'Non-empty data field is required'; every
    // operation (`reset_op` here) answers 500 "An internal error occured…" on an unexpected
    // exception.
    post("/generate")
        .respond_with(err(422, "Non-empty data field is required"))
        .mount(api.server())
        .await;
    post("/reset")
        .respond_with(err(
            500,
            "An internal error occured. Check the logs for details.",
        ))
        .mount(api.server())
        .await;
    assert!(matches!(
        client.generate(&["pki"]).await,
        Err(Error::Api { status: 422, .. })
    ));
    assert!(
        matches!(client.reset(&["ip", "bgp"]).await, Err(Error::Api { status: 500, ref message, .. }) if message.starts_with("An internal error"))
    );

    // A proxy in front of the router answering its own page.
    post("/show")
        .respond_with(ResponseTemplate::new(502).set_body_string("<html>Bad Gateway</html>"))
        .mount(api.server())
        .await;
    match client.show(&["version"]).await {
        Err(Error::Http(e)) => assert_eq!(e.status().map(|s| s.as_u16()), Some(502)),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn info_and_its_clean_absence() {
    let (api, client) = router().await;
    // `vyos-http-api.md`, "/info": GET, no key.
    Mock::given(method("GET"))
        .and(path("/info"))
        .respond_with(ok(
            json!({"version": "1.5-rolling", "hostname": "vyos", "banner": "Welcome to VyOS"}),
        ))
        .expect(1)
        .mount(api.server())
        .await;
    let info = client.info().await.unwrap().unwrap();
    assert_eq!(
        (info.version.as_str(), info.hostname.as_str()),
        ("1.5-rolling", "vyos")
    );
    api.verify().await;

    // Routers before /info existed: FastAPI's 404 `{"detail":"Not Found"}`.
    let (old, client) = router().await;
    Mock::given(method("GET"))
        .and(path("/info"))
        .respond_with(ResponseTemplate::new(404).set_body_string(r#"{"detail":"Not Found"}"#))
        .mount(old.server())
        .await;
    assert_eq!(client.info().await.unwrap(), None);
}

#[tokio::test]
async fn debug_never_shows_the_key() {
    let (_api, client) = router().await;
    let shown = format!("{client:?}");
    assert!(!shown.contains(KEY), "{shown}");
    assert!(shown.contains("redacted"), "{shown}");
}

/// A router without `/info` (404, as 1.4 answers) whose `show version` prints `version` and
/// whose `show foo` is refused with a text holding a literal `&amp;`, sent as written.
async fn router_without_info_refusing_foo(version: &str) -> (MockApi, cpps_vyos::Client) {
    let (api, client) = router().await;
    Mock::given(method("GET"))
        .and(path("/info"))
        .respond_with(ResponseTemplate::new(404))
        .mount(api.server())
        .await;
    post("/show")
        .and(body_json(
            json!({"key": KEY, "op": "show", "path": ["version"]}),
        ))
        .respond_with(ok(json!(version)))
        .mount(api.server())
        .await;
    post("/show")
        .and(body_json(
            json!({"key": KEY, "op": "show", "path": ["foo"]}),
        ))
        .respond_with(err_as_written(
            400,
            "Invalid command: show <foo> &amp; more",
        ))
        .mount(api.server())
        .await;
    (api, client)
}

/// Issue 32 (S8), the version cache: a client that read 1.4 before an upgrade to 1.5 must,
/// once it has read the version again (`Client::version_fresh`), keep the new reading and read
/// error texts as 1.5 writes them. 1.4's `error()` (vyos-1x `sagitta`
/// `src/services/vyos-http-api-server`) sends the text as it is; 1.5's (vyos-1x
/// `src/services/api/rest/models.py` `error`) HTML-escapes it, and 1.5 serves `GET /info`
/// (`src/services/api/rest/routers.py`). Failed first: `version()` still said 1.4 after
/// `version_fresh()` said 1.5, and the 1.5 error kept its `&lt;` entities.
#[tokio::test]
async fn a_fresh_version_replaces_the_kept_one_and_how_errors_are_read() {
    let (api, client) = router_without_info_refusing_foo(
        "Version:          VyOS 1.4.0\nRelease train:    sagitta\n",
    )
    .await;
    assert_eq!(
        client.version().await.unwrap().api,
        cpps_vyos::ApiGeneration::V14
    );
    // `/image add` of a 1.5 image and a reboot into it: the same URL now serves 1.5's API.
    api.server().reset().await;
    serve_info_1_5(&api).await;
    post("/show")
        .and(body_json(
            json!({"key": KEY, "op": "show", "path": ["foo"]}),
        ))
        .respond_with(err(400, "Invalid command: show <foo> & more"))
        .mount(api.server())
        .await;
    let fresh = client.version_fresh().await.unwrap();
    assert_eq!(
        (fresh.api, fresh.text.as_str()),
        (cpps_vyos::ApiGeneration::V15, "1.5-rolling")
    );
    let kept = client.clone().version().await.unwrap();
    assert_eq!(
        kept, fresh,
        "a clone keeps the fresh reading, not the first"
    );
    match client.show(&["foo"]).await {
        Err(Error::Api {
            status: 400,
            message,
            ..
        }) => assert_eq!(message, "Invalid command: show <foo> & more"),
        other => panic!("{other:?}"),
    }
}

/// Issue 32, vyconf's reader: on a router whose backend is vyconf, `showConfig` `raw` is
/// vyos1x-config's rendering (`render_at_level`, see `printers::sp_gw_vyconf_show_config` for the
/// upstream chain): every value in `"` and escaped by `src/util.ml` `escape_string`, lines from
/// column 0. On the legacy backend it is vyatta-cfg's (`src/cnode/cnode-algorithm.cpp`: values
/// bare unless they need quotes, nothing escaped, every line after the `PFX_DIFF_NONE` column).
/// The reader is chosen from the text (its values), not from a version number, and both
/// texts of one configuration read as the same tree. Failed first: the vyconf text was read as
/// vyatta-cfg's, so `to \"Franca\"` kept its backslashes.
#[tokio::test]
async fn show_config_is_read_in_the_dialect_the_router_printed() {
    use common::printers::{sp_gw_show_config, sp_gw_vyconf_show_config};
    let read = |text: String| async move {
        let (api, client) = router().await;
        post("/retrieve")
            .and(body_json(
                json!({"key": KEY, "op": "showConfig", "path": [], "configFormat": "raw"}),
            ))
            .respond_with(ok(json!(text)))
            .mount(api.server())
            .await;
        client.config_tree().await.unwrap()
    };
    let legacy = read(sp_gw_show_config()).await;
    let vyconf = read(sp_gw_vyconf_show_config()).await;
    let eth = |t: &cpps_vyos::ConfigTree, n: &str| {
        t.value(&["interfaces", "ethernet", n, "description"])
            .map(str::to_owned)
    };
    assert_eq!(eth(&vyconf, "eth0").as_deref(), Some("Bob's-uplink"));
    for n in ["eth0", "eth1", "eth2"] {
        assert_eq!(eth(&vyconf, n), eth(&legacy, n), "{n}");
    }
    assert_eq!(vyconf, legacy);
    assert_eq!(
        cpps_vyos::ConfigTree::printer_of_shown(&sp_gw_vyconf_show_config()),
        cpps_vyos::config::ShownBy::Vyos1x
    );
    assert_eq!(
        cpps_vyos::ConfigTree::printer_of_shown(&sp_gw_show_config()),
        cpps_vyos::config::ShownBy::VyattaCfg
    );
}

/// Issue 32, V2 (rest): the newer vyconf prints showConfig one column in. vyconf
/// `src/session.ml` `show_config` answers vyos1x-config `src/diff_show.ml` `diff_show`, whose
/// `annotate_rendered Unchanged` puts `" "` before every line of `render_config`
/// (`printers::vyconf_diff_show`): vyos1x values (every value in `"`, escaped by `src/util.ml`
/// `escape_string`) at the column where vyatta-cfg's `PFX_DIFF_NONE` puts its unescaped ones
/// (`src/cnode/cnode-algorithm.cpp` `_diff_print_indent`, `_print_value_str`). The printer is
/// told by the values, and the three texts of one configuration read as one tree. Failed
/// first: the newer vyconf text was read as vyatta-cfg's, so `to \"Franca\"` kept its
/// backslashes.
#[tokio::test]
async fn the_newer_vyconf_text_one_column_in_reads_as_vyos1x() {
    use common::printers::{sp_gw, sp_gw_show_config, sp_gw_vyconf_show_config, vyconf_diff_show};
    use cpps_vyos::config::ShownBy;
    let newer = vyconf_diff_show(&sp_gw());
    assert!(newer.starts_with(" interfaces {\n     ethernet eth0 {\n"));
    let (api, client) = router().await;
    post("/retrieve")
        .and(body_json(
            json!({"key": KEY, "op": "showConfig", "path": [], "configFormat": "raw"}),
        ))
        .respond_with(ok(json!(newer)))
        .mount(api.server())
        .await;
    let tree = client.config_tree().await.unwrap();
    assert_eq!(
        tree.value(&["interfaces", "ethernet", "eth1", "description"]),
        Some("to \"Franca\" over the \"long\" fibre")
    );
    assert_eq!(
        tree.value(&["interfaces", "wireguard", "wg0", "description"]),
        Some("C:\\tunnels\\sp-franca")
    );
    let legacy = cpps_vyos::ConfigTree::parse_shown(&sp_gw_show_config()).unwrap();
    assert_eq!(tree, legacy);
    for (text, by) in [
        (newer, ShownBy::Vyos1x),
        (sp_gw_vyconf_show_config(), ShownBy::Vyos1x),
        (sp_gw_show_config(), ShownBy::VyattaCfg),
    ] {
        assert_eq!(cpps_vyos::ConfigTree::printer_of_shown(&text), by, "{text}");
    }
}

/// Issue 32, V2 (rest): which printer wrote a text is told by what the printers do differently,
/// each text below built by the printer's rules (`printers`): vyos1x-config `render_values`
/// quotes every leaf value and prints tag values bare (`render_tag_node_child`); vyatta-cfg
/// `_print_value_str` prints a value bare unless it is empty or holds a blank or one of
/// `*}{;`, quotes a tag value under the same test (`_diff_show_other`) and never escapes. A
/// text with no value, or only values both would quote, cannot tell: it reads as one tree when
/// both dialects give the same tree, and is refused when a quoted value's backslash would read
/// differently (never guessed). Failed first: the first column decided, so the vyatta-cfg text
/// of `C:\tmp\x y` with no other value was fine but the newer vyconf's `" "` column read its
/// escapes as cnode text.
#[test]
fn the_printer_is_told_by_values_or_said_to_be_unknown() {
    a_bare_value_tells_the_printer();
    a_quoted_tag_value_tells_vyatta_cfg();
    values_both_quote_read_as_one_tree();
    a_quoted_backslash_both_could_print_is_refused();
    a_backslash_vyos1x_never_writes_tells_vyatta_cfg();
}

/// A printer of a cnode tree: [`common::printers`]'s, as each VyOS config backend prints.
type Printer = fn(&[common::printers::CNode]) -> String;

/// The four printers whose texts `ConfigTree::printer_of_shown` tells apart, each with its name.
const PRINTERS: [(&str, Printer); 4] = [
    ("vyatta-cfg in a session", |n| {
        common::printers::cnode_print(n, " ")
    }),
    ("vyatta-cfg, same node", |n| {
        common::printers::cnode_print(n, "")
    }),
    ("vyconf render_at_level", common::printers::vyos1x_render),
    ("vyconf diff_show", common::printers::vyconf_diff_show),
];

/// `system login banner NAME VALUE`, the one value of a tree.
fn banner(name: &'static str, value: &'static str) -> Vec<common::printers::CNode> {
    use common::printers::CNode;
    vec![CNode::Node(
        "system",
        None,
        vec![CNode::Node(
            "login",
            None,
            vec![CNode::Node(
                "banner",
                None,
                vec![CNode::Leaf(name, vec![value])],
            )],
        )],
    )]
}

/// Bare against quoted: decided.
fn a_bare_value_tells_the_printer() {
    use cpps_vyos::ConfigTree;
    use cpps_vyos::config::ShownBy;
    let bare = banner("pre-login", "C:\\ops");
    for (name, print) in &PRINTERS {
        let text = print(&bare);
        let by = ConfigTree::printer_of_shown(&text);
        let want = if name.starts_with("vyatta") {
            ShownBy::VyattaCfg
        } else {
            ShownBy::Vyos1x
        };
        assert_eq!(by, want, "{name}: {text}");
        let tree = ConfigTree::parse_shown(&text).unwrap();
        assert_eq!(
            tree.value(&["system", "login", "banner", "pre-login"]),
            Some("C:\\ops"),
            "{name}"
        );
    }
}

/// A quoted tag value is vyatta-cfg's (vyos1x never quotes one).
fn a_quoted_tag_value_tells_vyatta_cfg() {
    use common::printers::{CNode, cnode_print, vyconf_diff_show};
    use cpps_vyos::ConfigTree;
    use cpps_vyos::config::ShownBy;
    let tag = vec![CNode::Node(
        "service",
        None,
        vec![CNode::Node(
            "snmp",
            None,
            vec![CNode::Tag(
                "community",
                "pub*lic",
                None,
                vec![CNode::Typeless("no-default")],
            )],
        )],
    )];
    assert_eq!(
        ConfigTree::printer_of_shown(&cnode_print(&tag, " ")),
        ShownBy::VyattaCfg
    );
    assert_eq!(
        ConfigTree::printer_of_shown(&vyconf_diff_show(&tag)),
        ShownBy::Undecided
    );
}

/// Only values both quote, without a backslash or quote: undecided, one tree either way.
fn values_both_quote_read_as_one_tree() {
    use cpps_vyos::ConfigTree;
    use cpps_vyos::config::ShownBy;
    let spaced = banner("pre-login", "all sessions are logged");
    for (name, print) in &PRINTERS {
        let text = print(&spaced);
        assert_eq!(
            ConfigTree::printer_of_shown(&text),
            ShownBy::Undecided,
            "{name}"
        );
        let tree = ConfigTree::parse_shown(&text).unwrap();
        assert_eq!(
            tree.value(&["system", "login", "banner", "pre-login"]),
            Some("all sessions are logged"),
            "{name}"
        );
    }
}

/// `see C:\new logs`: vyatta-cfg prints `"see C:\new logs"`, which vyos1x would print for
/// `see C:<line feed>ew logs`; vyos1x prints `"see C:\\new logs"`, which vyatta-cfg would
/// print for `see C:\\new logs`. Nothing else tells: refused, not guessed.
fn a_quoted_backslash_both_could_print_is_refused() {
    use cpps_vyos::ConfigTree;
    use cpps_vyos::config::ShownBy;
    let escaped = banner("pre-login", "see C:\\new logs");
    for (name, print) in &PRINTERS {
        let text = print(&escaped);
        assert_eq!(
            ConfigTree::printer_of_shown(&text),
            ShownBy::Undecided,
            "{name}"
        );
        let err = ConfigTree::parse_shown(&text).unwrap_err();
        assert_eq!(err.line, 4, "{name}: {err}");
        assert!(err.to_string().contains("printer"), "{name}: {err}");
    }
}

/// A backslash vyos1x never writes (`\o`) tells: vyatta-cfg's.
fn a_backslash_vyos1x_never_writes_tells_vyatta_cfg() {
    use common::printers::cnode_print;
    use cpps_vyos::ConfigTree;
    use cpps_vyos::config::ShownBy;
    let lone = banner("pre-login", "see C:\\ops now");
    let text = cnode_print(&lone, " ");
    assert_eq!(ConfigTree::printer_of_shown(&text), ShownBy::VyattaCfg);
    assert_eq!(
        ConfigTree::parse_shown(&text)
            .unwrap()
            .value(&["system", "login", "banner", "pre-login"]),
        Some("see C:\\ops now")
    );
}
