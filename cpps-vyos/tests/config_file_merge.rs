//! `POST /config-file` `merge` on builds whose merge helper is vyos1x-config's `tree_merge`.
//!
//! vyos-1x PR #4574 (T7499, "update config merge tools") rewrote
//! `src/helpers/vyos-merge-config.py` to build `merge(session_ct, merge_ct,
//! destructive=args.destructive)` (`python/vyos/configtree.py` `merge` → vyos1x-config
//! `src/union.ml` `tree_merge ~destructive`) and added `destructive: bool = False` to
//! `ConfigFileModel` (`src/services/api/rest/models.py`), which `config_file_op`
//! (`routers.py`) passes to `ConfigSession.merge_config`. `tree_merge` keeps the existing
//! node's data (values) unless `destructive`, when the merged text's data replaces it; the PR's
//! own example shows `address 10.23.2.17/24` left as it was by a default merge, and
//! `src/tests/test_config_merge.py` asserts both cases. The same helper runs `ConfigMigrate` only
//! under `--migrate`, which `ConfigSession.merge_config` (`python/vyos/configsession.py`) never
//! passes. Builds from before the PR have no `destructive` in the schema, and their helper runs
//! `ConfigMigrate` and then `my_set` for each of the text's commands the running configuration
//! lacks.

mod common;

use common::{FakeRouter, KEY, Profile, ok, openapi_doc};
use cpps_http::test_util::MockApi;
use cpps_vyos::config::{Command, NodeRef, Op};
use cpps_vyos::{Client, ConfigSource, ConfigTree, ConfigVersion, Error, Landed};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use wiremock::matchers::{any, method, path};
use wiremock::{Mock, ResponseTemplate};

fn start_tree() -> ConfigTree {
    ConfigTree::parse_boot(
        "interfaces {\n    ethernet eth1 {\n        address 10.23.2.17/24\n        hw-id 52:54:00:20:0c:7e\n    }\n}\nsystem {\n    host-name sp-gw\n}\n",
    )
    .unwrap()
}

/// The merge of vyos1x-config `src/union.ml` `tree_merge ~destructive running text` on leaves:
/// a leaf the running configuration has keeps its values unless `destructive`, when the text's
/// values replace them (`Tree_alg.tree_union` calls `f u v` for a child present in both whose
/// data differ); everything else of the text is added.
fn tree_merge(running: &ConfigTree, text: &[Command], destructive: bool) -> ConfigTree {
    let mut out = running.clone();
    let mut replaced = BTreeSet::new();
    for c in text.iter().filter(|c| c.op == Op::Set) {
        let existing = matches!(running.get(&c.path), Some(NodeRef::Leaf(_)));
        if existing && !destructive {
            continue;
        }
        if existing && replaced.insert(c.path.clone()) {
            out.apply(&Command::delete(c.path.clone(), None)).unwrap();
        }
        out.apply(c).unwrap();
    }
    out
}

/// `/openapi.json` with `/config-file`'s `ConfigFileModel` as PR #4574 declares it
/// (`destructive: bool = False`).
fn openapi_with_destructive() -> Value {
    let mut doc = openapi_doc(true);
    doc["components"]["schemas"]["ConfigFileModel"]["properties"]["destructive"] =
        json!({"type": "boolean", "title": "Destructive", "default": false});
    doc
}

/// A 1.5 router whose `/config-file` `merge` is PR #4574's: `tree_merge` with the body's
/// `destructive` (default false), no migration. Everything else is the shared fake.
async fn tree_merge_router(running: ConfigTree) -> (MockApi, Client, FakeRouter) {
    let fake = FakeRouter::new(Profile::V15, running);
    let api = MockApi::start("").await;
    Mock::given(method("GET"))
        .and(path("/openapi.json"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openapi_with_destructive()))
        .with_priority(1)
        .mount(api.server())
        .await;
    let state = fake.clone();
    Mock::given(method("POST"))
        .and(path("/config-file"))
        .respond_with(move |req: &wiremock::Request| {
            let body: Value = serde_json::from_slice(&req.body).unwrap();
            let mut st = state.state.lock().unwrap();
            st.requests.push(("config-file".to_owned(), body.clone()));
            if body["op"] != "merge" {
                return common::err(400, "only merge here");
            }
            let text = body["string"].as_str().unwrap();
            let commands = common::vyos1x::parse(text).unwrap();
            let destructive = body["destructive"].as_bool().unwrap_or(false);
            st.running = tree_merge(&st.running, &commands, destructive);
            ok(json!(""))
        })
        .with_priority(1)
        .mount(api.server())
        .await;
    Mock::given(any())
        .respond_with(fake.clone())
        .with_priority(2)
        .mount(api.server())
        .await;
    let client = Client::new(api.client(), cpps_vyos::SecretString::from(KEY.to_owned()));
    (api, client, fake)
}

/// A merge that changes an existing leaf takes effect: the crate sends `destructive: true`, so
/// `tree_merge` puts the text's values in place of the router's, as the merge is documented to.
/// The multi-valued `address` is replaced, not added to (the text's data replace the node's).
/// Failed first: no `destructive` was sent, and `host-name` and `address` kept their old values.
#[tokio::test]
async fn a_merge_changes_existing_leaves_where_the_helper_is_tree_merge() {
    let (_api, client, fake) = tree_merge_router(start_tree()).await;
    let text = "interfaces {\n    ethernet eth1 {\n        address 10.23.2.18/24\n        description uplink\n    }\n}\nsystem {\n    host-name sp-gw2\n}\n";
    let done = client
        .merge(&ConfigSource::InlineFromRouter(text.to_owned()), None)
        .await
        .unwrap();
    let sent = fake.requests_to("config-file");
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["destructive"], json!(true));
    let running = fake.running();
    assert_eq!(running.value(&["system", "host-name"]), Some("sp-gw2"));
    assert_eq!(
        running.values(&["interfaces", "ethernet", "eth1", "address"]),
        ["10.23.2.18/24"]
    );
    assert_eq!(
        running.value(&["interfaces", "ethernet", "eth1", "hw-id"]),
        Some("52:54:00:20:0c:7e")
    );
    // The read-back finds every command of the text.
    assert_eq!(done.landed, Landed::Yes, "{:?}", done.commands);
}

/// This helper never migrates (`--migrate` is not passed by `ConfigSession.merge_config`), so a
/// text in another release's syntax would land unmigrated: refused, nothing sent, unless its
/// version is the router's own (`show system commit file 0`). Failed first: the 1.3 text was
/// sent with its footer, as if VyOS would migrate it.
#[tokio::test]
async fn a_text_in_another_syntax_is_refused_where_merge_does_not_migrate() {
    let (_api, client, fake) = tree_merge_router(start_tree()).await;
    let old = "interfaces {\n    ethernet eth2 {\n        address 10.10.0.1/24\n    }\n}\n";
    let v13 = ConfigVersion::new("interfaces@20:system@19", "1.3.0").unwrap();
    let at = ConfigSource::InlineAt {
        text: old.to_owned(),
        version: v13,
    };
    match client.merge(&at, None).await {
        Err(Error::InlineConfigRefused { reason }) => {
            assert!(reason.contains("does not migrate"), "{reason}");
            assert!(reason.contains("interfaces@20:system@19"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    let own_footer = format!(
        "{old}// Warning: Do not remove the following line.\n// vyos-config-version: \"interfaces@20:system@19\"\n// Release version: 1.3.0\n"
    );
    assert!(matches!(
        client.merge(&ConfigSource::Inline(own_footer), None).await,
        Err(Error::InlineConfigRefused { .. })
    ));
    assert!(fake.requests_to("config-file").is_empty());

    // In the router's own syntax (the fake's archived footer), it goes out.
    let router = ConfigVersion::new("bgp@5:https@6:interfaces@32:system@27", "1.4.0").unwrap();
    let at_router = ConfigSource::InlineAt {
        text: old.to_owned(),
        version: router,
    };
    client.merge(&at_router, None).await.unwrap();
    assert_eq!(fake.requests_to("config-file").len(), 1);
    assert_eq!(
        fake.running()
            .value(&["interfaces", "ethernet", "eth2", "address"]),
        Some("10.10.0.1/24")
    );
}
