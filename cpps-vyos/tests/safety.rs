//! Safe writes on VyOS 1.4 and 1.5: the router's version decides whether commit-confirm can be
//! used, a commit-confirm is never silently lost, a confirmed change is saved, background commits
//! of `service https` are detected and checked, and every write is read back per command. The
//! fake router of `common` answers as each server's code does (its comment names the files).

mod common;

use std::num::NonZeroU32;

use common::{FakeRouter, KEY, Profile, err, ok, post, serve_info_1_5};
use cpps_http::test_util::{MockApi, env_lookup};
use cpps_vyos::config::ConfigTree;
use cpps_vyos::{ApiGeneration, Client, Command, Committed, ConfirmAction, Error, Landed};
use serde_json::json;

fn start_tree() -> ConfigTree {
    ConfigTree::parse_boot(
        "interfaces {\n    ethernet eth0 {\n        address 192.0.2.1/24\n    }\n}\nsystem {\n    host-name sp-gw\n}\n",
    )
    .unwrap()
}

fn batch() -> Vec<Command> {
    vec![
        Command::set(
            ["interfaces", "ethernet", "eth0", "description"],
            Some("Bob's uplink"),
        ),
        Command::set(["system", "host-name"], Some("sp-gw2")),
        Command::delete(["system", "host-name"], Some("sp-gw")),
    ]
}

/// What a refused `load`/`merge` says once the API's session was discarded (audit N5).
const DISCARDED: &str = "the API's configuration session was discarded, so nothing the refused write left stays staged there";

fn five() -> Option<NonZeroU32> {
    NonZeroU32::new(5)
}

/// The endpoint, the answer text and the read-back of a write that did not start its
/// commit-confirm timer.
fn not_initialized(result: Result<Committed, Error>) -> (&'static str, String, Landed) {
    match result {
        Err(Error::CommitConfirmNotInitialized {
            endpoint,
            message,
            landed,
        }) => (endpoint, message, landed),
        other => panic!("{other:?}"),
    }
}

/// vyos-1x `sagitta` `src/services/vyos-http-api-server`: `ConfigureListModel` has no
/// `confirm_time` (pydantic drops it and commits for good) and `config_file_op` has no `confirm`;
/// there is no `/info`, so the version comes from `show version` (`show_op`).
#[tokio::test]
async fn on_1_4_commit_confirm_is_refused_before_anything_is_written() {
    let (api, client, fake) = FakeRouter::new(Profile::V14, start_tree()).start().await;
    let version = client.version().await.unwrap();
    assert_eq!(version.api, ApiGeneration::V14);
    assert_eq!(version.text, "VyOS 1.4.0");
    let err = client.configure(&batch(), five()).await.unwrap_err();
    match &err {
        Error::CommitConfirmUnsupported { version, reason } => {
            assert_eq!(version, "VyOS 1.4.0");
            assert!(reason.contains("committed for good"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(err.delivery(), cpps_http::Delivery::NotSent);
    assert!(fake.requests_to("configure").is_empty());
    assert_eq!(fake.running(), start_tree());
    // `confirm` is refused too, and the plan says why.
    assert!(matches!(
        client.confirm().await,
        Err(Error::CommitConfirmUnsupported { .. })
    ));
    let plan = client.plan_configure(&batch(), five()).await.unwrap();
    assert!(plan.commit_confirm.is_none());
    assert!(
        plan.to_string().contains("commit-confirm REFUSED"),
        "{plan}"
    );
    // `configure` and `confirm` use the version read once; the plan reads it again, since the
    // image may have changed (S8): two `show version`.
    assert_eq!(fake.requests_to("show").len(), 2);
    api.assert_no_unexpected_requests();
}

/// A plain batch is one `/configure` with exactly the fields of `ConfigureListModel` (vyos-1x
/// `sagitta` `src/services/vyos-http-api-server` for 1.4, `src/services/api/rest/models.py` for
/// 1.5): no `confirm_time` key at all; on both it is read back through `/retrieve` `showConfig`
/// (`RetrieveModel` in the same files) and every command judged.
#[tokio::test]
async fn on_both_versions_a_batch_is_one_request_read_back_per_command() {
    for profile in [Profile::V14, Profile::V15] {
        let (_api, client, fake) = FakeRouter::new(profile, start_tree()).start().await;
        let done = client.configure(&batch(), None).await.unwrap();
        let sent = fake.requests_to("configure");
        assert_eq!(sent.len(), 1);
        assert_eq!(
            sent[0],
            json!({"key": KEY, "commands": [
                {"op": "set", "path": ["interfaces", "ethernet", "eth0", "description"], "value": "Bob's uplink"},
                {"op": "set", "path": ["system", "host-name"], "value": "sp-gw2"},
                {"op": "delete", "path": ["system", "host-name"], "value": "sp-gw"},
            ]}),
            "{profile:?}"
        );
        assert_eq!(done.landed, Landed::Yes, "{profile:?}");
        assert_eq!(
            done.commands.iter().map(|c| c.landed).collect::<Vec<_>>(),
            [Some(true), Some(true), Some(true)]
        );
        assert!(!done.background_commit);
        assert_eq!(fake.running().host_name(), Some("sp-gw2"));
    }
}

/// A refused batch's error text reads as the router wrote it on both versions: 1.5's `error()`
/// (vyos-1x `src/services/api/rest/models.py`) HTML-escapes it and the client unescapes it, 1.4's
/// (`sagitta` `src/services/vyos-http-api-server`) sends it as it is and the client, knowing the
/// version, keeps it (a literal `&amp;` in the path stays one).
#[tokio::test]
async fn on_both_versions_a_refusal_reads_as_the_router_wrote_it() {
    for (profile, api) in [
        (Profile::V14, ApiGeneration::V14),
        (Profile::V15, ApiGeneration::V15),
    ] {
        let (_api, client, _fake) = FakeRouter::new(profile, start_tree()).start().await;
        assert_eq!(client.version().await.unwrap().api, api);
        let bad = vec![Command::set(
            ["system", "host-name", "a&amp;<b>"],
            Some("x"),
        )];
        match client.configure(&bad, None).await {
            Err(Error::Api {
                status: 400,
                message,
                ..
            }) => assert!(
                message
                    .starts_with("Configuration path: [system host-name a&amp;<b>] is not valid"),
                "{profile:?}: {message}"
            ),
            other => panic!("{profile:?}: {other:?}"),
        }
    }
}

/// A 1.5 rolling build from between vyos-1x PR #4380 (`GET /info`, March 2025) and PR #4533
/// (`confirm_time`, June 2025) answers `/info` but its pydantic `ConfigureListModel` drops
/// `confirm_time`, so a commit-confirm batch would be committed for good with no timer. The
/// capability comes from the API's own schema (`GET /openapi.json`, FastAPI), never from `/info`.
/// Failed first: the client took `/info` for commit-confirm and the batch was committed for good.
#[tokio::test]
async fn commit_confirm_is_decided_by_the_schema_not_by_info() {
    let (_api, client, fake) = FakeRouter::new(Profile::V15, start_tree()).start().await;
    fake.state.lock().unwrap().confirm_time = false;
    assert!(client.info().await.unwrap().is_some());
    match client.configure(&batch(), five()).await {
        Err(Error::CommitConfirmUnsupported { reason, .. }) => {
            assert!(reason.contains("/openapi.json"), "{reason}");
            assert!(reason.contains("no confirm_time"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert!(fake.requests_to("configure").is_empty());
    assert_eq!(fake.running(), start_tree());
    assert_eq!(
        client.commit_confirm_support().await.unwrap(),
        cpps_vyos::CommitConfirmSupport::No {
            reason: "the API's schema (/openapi.json) has no confirm_time in the /configure request: the server would drop it and the change would be committed for good".to_owned()
        }
    );
    // The same router once it declares the field.
    fake.state.lock().unwrap().confirm_time = true;
    assert!(
        client
            .commit_confirm_support()
            .await
            .unwrap()
            .is_supported()
    );
    let done = client.configure(&batch(), five()).await.unwrap();
    assert_eq!(done.commit_confirm.map(|c| c.minutes), Some(5));
}

/// Inline `merge` text is read by vyos1x-config on the router (vyos-1x
/// `src/helpers/vyos-merge-config.py`, `vyos.configtree.ConfigTree`; vyos1x-config
/// `src/vyos1x_lexer.mll`: `'` and `"` open strings, `\` escapes are decoded), after
/// `python/vyos/migrate.py`, which migrates a text without footer from version 0. VyOS's printed
/// form (`description Bob's-uplink`) would break there; the client sends the loader's dialect
/// with the router's footer, and the router holds exactly the values meant. Failed first: the
/// text went as printed, without footer, and the router refused or mangled it.
#[tokio::test]
async fn inline_merge_is_sent_in_the_loaders_dialect_with_a_footer() {
    let (_api, client, fake) = FakeRouter::new(Profile::V15, start_tree()).start().await;
    let text = "interfaces {\n    ethernet eth0 {\n        description Bob's-uplink\n    }\n    ethernet eth1 {\n        description \"to \"Franca\" over C:\\fibre\"\n    }\n    ethernet eth2 {\n        description 'uplink'\n    }\n}\n";
    let meant = ConfigTree::parse_boot(text).unwrap();
    let done = client
        .merge(
            &cpps_vyos::ConfigSource::InlineFromRouter(text.to_owned()),
            None,
        )
        .await
        .unwrap();
    assert_eq!(done.landed, Landed::Yes);
    let running = fake.running();
    for eth in ["eth0", "eth1", "eth2"] {
        let path = ["interfaces", "ethernet", eth, "description"];
        assert_eq!(running.value(&path), meant.value(&path), "{eth}");
    }
    assert_eq!(
        running.value(&["interfaces", "ethernet", "eth1", "description"]),
        Some("to \"Franca\" over C:\\fibre")
    );
    assert!(!fake.state.lock().unwrap().migrated_from_zero);
    let sent = &fake.requests_to("config-file")[0]["string"];
    assert!(sent.as_str().unwrap().ends_with(common::FOOTER), "{sent}");

    // No footer in the text and none on the router (no commit archive): refused, not sent.
    fake.state.lock().unwrap().footer = None;
    match client
        .merge(
            &cpps_vyos::ConfigSource::InlineFromRouter(text.to_owned()),
            None,
        )
        .await
    {
        Err(Error::InlineConfigRefused { reason }) => {
            assert!(reason.contains("version 0"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fake.requests_to("config-file").len(), 1);
}

/// A commit that fails in one priority subtree keeps the others: vyatta-cfg
/// `src/commit/commit-algorithm.cpp` `_commit_exec_prio_subtree` commits each subtree on its own
/// and `Commit failed` ends the output; `_configure_op` (vyos-1x `routers.py`, and `sagitta`
/// `src/services/vyos-http-api-server`) only discards what is left and answers 400. The client
/// reads back and reports, per command, what is live. Failed first: the refusal was a plain
/// `Error::Api`, as if nothing had happened.
#[tokio::test]
async fn a_refused_commit_reports_what_landed_per_command() {
    for profile in [Profile::V14, Profile::V15] {
        let (_api, client, fake) = FakeRouter::new(profile, start_tree()).start().await;
        fake.state.lock().unwrap().failing_subtree =
            Some(vec!["interfaces".into(), "ethernet".into(), "eth1".into()]);
        let cmds = vec![
            Command::set(["system", "domain-name"], Some("example.net")),
            Command::set(
                ["interfaces", "ethernet", "eth1", "address"],
                Some("198.51.100.1/24"),
            ),
        ];
        match client.configure(&cmds, None).await {
            Err(Error::RefusedAfterCommit {
                endpoint,
                status,
                message,
                landed,
                commands,
            }) => {
                assert_eq!((endpoint, status), ("configure", 400), "{profile:?}");
                assert_eq!(
                    message,
                    "[[interfaces ethernet eth1]] failed\nCommit failed\n"
                );
                assert_eq!(
                    landed,
                    Landed::Partly {
                        landed: 1,
                        checked: 2
                    }
                );
                assert_eq!(
                    commands.iter().map(|c| c.landed).collect::<Vec<_>>(),
                    [Some(true), Some(false)],
                    "{profile:?}"
                );
            }
            other => panic!("{profile:?}: {other:?}"),
        }
        // Live, not saved.
        assert!(fake.running().exists(&["system", "domain-name"]));
        assert!(
            !fake
                .state
                .lock()
                .unwrap()
                .saved
                .exists(&["system", "domain-name"])
        );
    }
}

/// vyos-1x `src/services/api/rest/models.py` (1.5): `confirm_time: StrictInt` at the top level of
/// `ConfigureListModel`; `routers.py` answers `commit_confirm`'s text, `python/vyos/config_mgmt.py`
/// "Initialized commit-confirm; N minutes to confirm before reboot"; `confirm` answers "Reboot
/// timer stopped". `vyos-http-api.md`: `commit-confirm action` is `reboot` (to the saved
/// configuration) by default. The confirmed change is saved afterwards.
#[tokio::test]
async fn on_1_5_commit_confirm_says_what_happens_and_confirm_saves() {
    let (api, client, fake) = FakeRouter::new(Profile::V15, start_tree()).start().await;
    let plan = client.plan_configure(&batch(), five()).await.unwrap();
    assert_eq!(plan.version.api, ApiGeneration::V15);
    let cc = plan.commit_confirm.clone().unwrap();
    assert_eq!((cc.minutes, &cc.action), (5, &ConfirmAction::Reboot));
    let text = plan.to_string();
    assert!(
        text.contains("REBOOT the router into its saved configuration"),
        "{text}"
    );
    assert!(
        text.contains("after the confirm the configuration is saved"),
        "{text}"
    );
    assert!(
        fake.requests_to("configure").is_empty(),
        "a plan writes nothing"
    );

    let done = client.configure(&batch(), five()).await.unwrap();
    assert_eq!(fake.requests_to("configure")[0]["confirm_time"], json!(5));
    // `run_commit_confirm`: the commit's output (none here), a line break, `commit_confirm`'s.
    assert_eq!(
        done.message,
        "\nInitialized commit-confirm; 5 minutes to confirm before reboot\n"
    );
    assert_eq!(done.commit_confirm.unwrap().action, ConfirmAction::Reboot);
    assert_eq!(done.landed, Landed::Yes);
    let saved = fake.state.lock().unwrap().saved.clone();
    assert_ne!(saved, fake.running(), "not saved yet");

    let confirmed = client.confirm().await.unwrap();
    assert_eq!(confirmed.message, "Reboot timer stopped\n");
    let files = fake.requests_to("config-file");
    assert_eq!(
        files,
        [
            json!({"key": KEY, "op": "confirm"}),
            json!({"key": KEY, "op": "save"})
        ]
    );
    let saved = fake.state.lock().unwrap().saved.clone();
    assert_eq!(saved, fake.running());
    // The version came from `/info`, once.
    assert!(fake.requests_to("show").is_empty());
    api.assert_no_unexpected_requests();

    // A second confirm finds nothing pending: `confirm` in `config_mgmt.py` answers
    // "No confirm pending" (the timer ran out, or nothing was committed with confirm).
    assert!(matches!(
        client.confirm().await,
        Err(Error::NothingToConfirm { .. })
    ));
}

/// vyos-1x `src/services/api/rest/routers.py` `run_commit_confirm` commits, then starts the timer:
/// while another commit-confirm is pending, `config-mgmt commit_confirm` prints "Another confirm
/// is pending" and exits 1 (`commit_confirm` and `run` in `python/vyos/config_mgmt.py`), which
/// `__run_command` (`python/vyos/configsession.py`) raises and `_configure_op` answers 400, the
/// batch committed for good. The client reads back and says so; a refusal whose read-back shows
/// nothing landed stays a refusal.
#[tokio::test]
async fn a_timer_refused_after_the_commit_is_reported_as_committed_without_revert() {
    let (_api, client, fake) = FakeRouter::new(Profile::V15, start_tree()).start().await;
    client.configure(&batch(), five()).await.unwrap();
    let second = vec![Command::set(["system", "domain-name"], Some("example.net"))];
    assert_eq!(
        not_initialized(client.configure(&second, five()).await),
        (
            "configure",
            "Another confirm is pending\n".to_owned(),
            Landed::Yes
        )
    );
    assert!(fake.running().exists(&["system", "domain-name"]));
    // `config_file_op` commits a merge the same way (`run_commit_confirm`).
    let inline =
        cpps_vyos::ConfigSource::InlineFromRouter("system {\n    time-zone UTC\n}\n".to_owned());
    // A refused merge also discards the API's session (audit N5), and the message says so.
    assert_eq!(
        not_initialized(client.merge(&inline, five()).await),
        (
            "config-file",
            format!("Another confirm is pending\n; {DISCARDED}"),
            Landed::Yes
        )
    );

    // Refused before anything was committed (a node below a leaf): still a refusal, which says
    // that a timer may be armed (S1: the answer cannot tell the builds apart).
    let bad = vec![Command::set(["system", "host-name", "below"], Some("x"))];
    match client.configure(&bad, five()).await {
        Err(Error::CommitConfirmRefused {
            endpoint: "configure",
            status: 400,
            message,
        }) => assert!(message.contains("is not valid"), "{message}"),
        other => panic!("{other:?}"),
    }
}

/// S1 of issue 32, confirmed: the first commit-confirm `_configure_op` (vyos-1x
/// `src/services/api/rest/routers.py`, before `run_commit_confirm`) calls
/// `session.commit_confirm(minutes=…)`, which arms the systemd timer (`commit_confirm` in
/// `python/vyos/config_mgmt.py`: `systemd-run --on-active=Nm --unit=commit-confirm`), and only
/// then `session.commit()`. A failed commit is answered 400 after `session.discard()`; nothing
/// stops the timer, and the router reboots when it runs out. The error says so, and `confirm`
/// stops it. Failed first: the refusal came back as a plain `Error::Api`.
#[tokio::test]
async fn a_refused_commit_confirm_says_a_timer_may_be_armed() {
    let (_api, client, fake) = FakeRouter::new(Profile::V15, start_tree()).start().await;
    {
        let mut st = fake.state.lock().unwrap();
        st.timer_before_commit = true;
        st.failing_subtree = Some(vec!["system".to_owned()]);
    }
    let cmds = vec![Command::set(["system", "domain-name"], Some("example.net"))];
    match client.configure(&cmds, five()).await {
        Err(e @ Error::CommitConfirmRefused { status: 400, .. }) => {
            assert!(e.to_string().contains("timer may be armed"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert!(!fake.running().exists(&["system", "domain-name"]));
    assert_eq!(fake.state.lock().unwrap().confirm_pending, Some(5));
    let confirmed = client.confirm().await.unwrap();
    assert_eq!(confirmed.message, "Reboot timer stopped\n");
    assert_eq!(fake.state.lock().unwrap().confirm_pending, None);
}

/// S10 of issue 32, confirmed in vyos-1x and not in vyconf: `vyconfd`'s `handle_connection`
/// (vyos/vyconf `src/vyconfd.ml`) answers an unimplemented request `status=Fail`, but
/// `ConfigSession.commit_confirm` and `confirm` (vyos-1x `python/vyos/configsession.py`) with
/// the vyconf backend return the text `unimplemented` without asking it, and the API answers
/// that as a success. A commit-confirm is then committed for good
/// (`CommitConfirmNotInitialized`, as before), and a confirm that stopped nothing must not read
/// as confirmed and saved. Failed first: `confirm` returned `Ok` and saved.
#[tokio::test]
async fn the_vyconf_backends_unimplemented_is_never_a_confirm() {
    let (_api, client, fake) = FakeRouter::new(Profile::V15, start_tree()).start().await;
    fake.state.lock().unwrap().vyconf_backend = true;
    assert_eq!(
        not_initialized(client.configure(&batch(), five()).await),
        ("configure", "unimplemented".to_owned(), Landed::Yes)
    );
    match client.confirm().await {
        Err(Error::UnexpectedAnswer {
            endpoint: "config-file",
            message,
        }) => assert!(message.contains("\"unimplemented\""), "{message}"),
        other => panic!("{other:?}"),
    }
    let saves = fake
        .requests_to("config-file")
        .iter()
        .filter(|b| b["op"] == "save")
        .count();
    assert_eq!(saves, 0, "nothing is saved after such an answer");
}

/// What happens when the confirm does not come is what the router's answer says, not what
/// its configuration says: vyos-1x `current` `python/vyos/config_mgmt.py` (T5976) sets
/// `reboot_unconfirmed = bool(d.get('commit_confirm') == 'reboot')`, but
/// `get_config_dict(…, with_defaults=True)` makes `commit_confirm` the dict `{'action': 'reboot'}`,
/// so the router reloads, and `commit_confirm` answers "… minutes to confirm before reload",
/// though the action is `reboot`. The plan says the configuration's action and that the answer
/// decides; the write reports the answer's. Failed first: the write reported `Reboot`.
#[tokio::test]
async fn the_confirm_action_is_taken_from_the_routers_answer() {
    let (_api, client, fake) = FakeRouter::new(Profile::V15, start_tree()).start().await;
    fake.state.lock().unwrap().answers_action = "reload".to_owned();
    let plan = client.plan_configure(&batch(), five()).await.unwrap();
    assert_eq!(
        plan.commit_confirm.as_ref().unwrap().action,
        ConfirmAction::Reboot
    );
    let text = plan.to_string();
    assert!(text.contains("the router's answer decides"), "{text}");
    let done = client.configure(&batch(), five()).await.unwrap();
    assert_eq!(done.commit_confirm.unwrap().action, ConfirmAction::Reload);
    assert!(
        done.warnings
            .iter()
            .any(|w| w.ends_with("VyOS will reload the previous configuration")),
        "{:?}",
        done.warnings
    );
}

/// S6 of issue 32: `confirm` is two writes, `op: confirm` (which stops the timer, vyos-1x
/// `python/vyos/config_mgmt.py` `confirm`) and `op: save`. When only the save fails, the change
/// is confirmed and live but not saved; a retried `confirm` would read "No confirm pending"
/// (`NothingToConfirm`, which says the timer ran out). So the error says the confirm happened
/// and the save is what to repeat. Failed first: the save's `Error::Api` came back as if the
/// confirm had failed.
#[tokio::test]
async fn a_confirm_whose_save_fails_says_it_was_confirmed() {
    let (_api, client, fake) = FakeRouter::new(Profile::V15, start_tree()).start().await;
    client.configure(&batch(), five()).await.unwrap();
    fake.state.lock().unwrap().save_fails = true;
    match client.confirm().await {
        Err(Error::ConfirmedNotSaved { message, source }) => {
            assert_eq!(message, "Reboot timer stopped\n");
            assert!(
                matches!(*source, Error::Api { status: 400, ref message, .. } if message.contains("No space left")),
                "{source:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fake.state.lock().unwrap().confirm_pending, None);
    // What to do next: save again, which works once the disk has room.
    fake.state.lock().unwrap().save_fails = false;
    client.save(None).await.unwrap();
    let saved = fake.state.lock().unwrap().saved.clone();
    assert_eq!(saved, fake.running());
}

/// `system config-management commit-confirm action reload` (`vyos-http-api.md`,
/// "Commit-confirm") is read and said in the plan.
#[tokio::test]
async fn the_confirm_action_is_read_from_the_router() {
    let mut tree = start_tree();
    tree.apply(&Command::set(
        ["system", "config-management", "commit-confirm", "action"],
        Some("reload"),
    ))
    .unwrap();
    let (_api, client, _fake) = FakeRouter::new(Profile::V15, tree).start().await;
    let plan = client.plan_configure(&batch(), five()).await.unwrap();
    assert_eq!(
        plan.commit_confirm.as_ref().unwrap().action,
        ConfirmAction::Reload
    );
    assert!(
        plan.to_string()
            .contains("reload the previous configuration")
    );
}

/// A server that drops `confirm_time` answers as for a plain commit. vyos-1x `sagitta`
/// `src/services/vyos-http-api-server` (1.4): `ConfigureListModel` has no `confirm_time`
/// (pydantic ignores the unknown field) and `_configure_op` keeps nothing of `session.commit()`,
/// so it answers `success(msg)` with `msg` still `None`: `data: null`. Only 1.5's commit-confirm
/// path says the timer started (`src/services/api/rest/routers.py` `run_commit_confirm`: the
/// commit's output, then `commit_confirm`'s text, "Initialized commit-confirm; N minutes to
/// confirm before reboot", `python/vyos/config_mgmt.py`). Here the router says 1.5 on `/info`
/// and answers as 1.4 does: the client trusts the answer over the version and reports an error
/// that says the change may be committed for good, with what the read-back found.
#[tokio::test]
async fn an_answer_without_initialized_commit_confirm_is_an_error() {
    let api = MockApi::start("").await;
    let client = Client::new(api.client(), cpps_vyos::SecretString::from(KEY.to_owned()));
    serve_info_1_5(&api).await;
    let after = "system {\n    host-name r2\n}\n";
    post("/retrieve")
        .respond_with(ok(json!(after)))
        .mount(api.server())
        .await;
    post("/configure")
        .respond_with(ok(json!(null)))
        .expect(1)
        .mount(api.server())
        .await;
    let cmds = vec![Command::set(["system", "host-name"], Some("r2"))];
    assert_eq!(
        not_initialized(client.configure(&cmds, five()).await),
        ("configure", "".to_owned(), Landed::Yes)
    );
    api.verify().await;
}

/// vyos-1x `routers.py` (and sagitta's `vyos-http-api-server`): a change below `service https`
/// is answered with `self_ref_msg` before the commit runs in a background task (`call_commit`),
/// whose failure is only logged. The client says so and reads back until it sees the change.
#[tokio::test]
async fn https_changes_are_committed_in_the_background_and_checked() {
    for profile in [Profile::V14, Profile::V15] {
        let (_api, client, _fake) = FakeRouter::new(profile, start_tree()).start().await;
        let cmds = vec![Command::set(
            ["service", "https", "listen-address"],
            Some("192.0.2.1"),
        )];
        let done = client.configure(&cmds, None).await.unwrap();
        assert!(done.background_commit, "{profile:?}");
        assert!(
            done.message
                .contains("commit will be called in the background")
        );
        assert!(
            done.warnings
                .iter()
                .any(|w| w.contains("in the background"))
        );
        assert_eq!(done.landed, Landed::Yes, "{profile:?}");
    }
    // The background commit fails: the answer was success all the same; the read-back tells.
    let fake = FakeRouter::new(Profile::V15, start_tree());
    fake.state.lock().unwrap().https_commit_fails = true;
    let (_api, client, _fake) = fake.start().await;
    let cmds = vec![Command::set(
        ["service", "https", "listen-address"],
        Some("192.0.2.1"),
    )];
    let done = client.configure(&cmds, None).await.unwrap();
    assert_eq!(done.landed, Landed::No);
    assert_eq!(done.commands[0].landed, Some(false));
    assert!(
        done.warnings
            .iter()
            .any(|w| w.contains("does not show the whole change"))
    );
}

/// vyos-1x `src/services/api/rest/routers.py` (1.5): a change below `service https` with
/// `confirm_time` is answered `self_ref_msg` alone, then committed and its timer started in a
/// background task (`call_commit_confirm`, failures only logged). The answer cannot say the timer
/// started: an error, whose read-back waited for the background commit; `confirm` then tells
/// whether a timer is pending (here it is: confirmed and saved).
#[tokio::test]
async fn a_commit_confirmed_https_change_is_not_reported_as_started() {
    let (_api, client, fake) = FakeRouter::new(Profile::V15, start_tree()).start().await;
    let cmds = vec![Command::set(
        ["service", "https", "listen-address"],
        Some("192.0.2.1"),
    )];
    let plan = client
        .plan_configure(&cmds, five())
        .await
        .unwrap()
        .to_string();
    assert!(
        plan.contains("its answer cannot say the timer started"),
        "{plan}"
    );
    assert_eq!(
        not_initialized(client.configure(&cmds, five()).await),
        ("configure", "Requested HTTP API server configuration change; commit will be called in the background".to_owned(), Landed::Yes)
    );
    assert_eq!(
        client.confirm().await.unwrap().message,
        "Reboot timer stopped\n"
    );
    let saved = fake.state.lock().unwrap().saved.clone();
    assert_eq!(saved, fake.running());
}

/// Every write is read back: a router that applied only part of a batch is reported as partly
/// landed, command by command. The commit is answered `data: null`, as 1.4's `_configure_op`
/// answers it (vyos-1x `sagitta` `src/services/vyos-http-api-server`), and the read-back is
/// `showConfig` `raw` text (its shape: `tests/common`).
#[tokio::test]
async fn a_partly_applied_batch_is_reported_per_command() {
    let api = MockApi::start("").await;
    let client = Client::new(api.client(), cpps_vyos::SecretString::from(KEY.to_owned()));
    post("/configure")
        .respond_with(ok(json!(null)))
        .mount(api.server())
        .await;
    post("/retrieve")
        .respond_with(ok(json!(" system {\n     host-name sp-gw2\n }\n")))
        .mount(api.server())
        .await;
    let done = client.configure(&batch(), None).await.unwrap();
    assert_eq!(
        done.landed,
        Landed::Partly {
            landed: 2,
            checked: 3
        }
    );
    assert_eq!(
        done.commands.iter().map(|c| c.landed).collect::<Vec<_>>(),
        [Some(false), Some(true), Some(true)]
    );
    assert!(done.to_owned().landed.to_string().contains("2 of 3"));
    let _ = err;
}

#[test]
fn the_builder_takes_a_url_as_text_like_every_client_and_build_names_a_bad_one() {
    let client = Client::builder("https://192.0.2.1/")
        .api_key(cpps_vyos::SecretString::from("k3y".to_owned()))
        .build()
        .unwrap();
    assert_eq!(client.http().base_url().as_str(), "https://192.0.2.1/");
    let e = Client::builder("https//no-scheme")
        .api_key(cpps_vyos::SecretString::from("k3y".to_owned()))
        .build()
        .unwrap_err()
        .to_string();
    assert!(e.contains("https//no-scheme"), "{e}");
}

#[test]
fn the_builder_reads_the_vyos_variables() {
    let lookup = env_lookup(&[
        ("VYOS_URL", "https://192.0.2.1/"),
        ("VYOS_API_KEY", "k3y"),
        (
            "VYOS_FINGERPRINT",
            "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89",
        ),
    ]);
    let client = cpps_vyos::ClientBuilder::from_env(&lookup)
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(client.http().base_url().as_str(), "https://192.0.2.1/");
    assert!(!format!("{client:?}").contains("k3y"));

    let missing = env_lookup(&[("VYOS_API_KEY", "k")]);
    let e = cpps_vyos::ClientBuilder::from_env(&missing)
        .unwrap_err()
        .to_string();
    assert!(e.contains("VYOS_URL"), "{e}");
    let no_key = env_lookup(&[("VYOS_URL", "https://r/")]);
    let e = cpps_vyos::ClientBuilder::from_env(&no_key)
        .unwrap_err()
        .to_string();
    assert!(e.contains("VYOS_API_KEY"), "{e}");
    let bad_pin = env_lookup(&[
        ("VYOS_URL", "https://r/"),
        ("VYOS_API_KEY", "k"),
        ("VYOS_FINGERPRINT", "nope"),
    ]);
    let e = format!(
        "{:#}",
        anyhow_like(cpps_vyos::ClientBuilder::from_env(&bad_pin).unwrap_err())
    );
    assert!(e.contains("VYOS_FINGERPRINT"), "{e}");
}

fn anyhow_like(e: Error) -> String {
    let mut out = e.to_string();
    let mut src = std::error::Error::source(&e);
    while let Some(s) = src {
        out.push_str(": ");
        out.push_str(&s.to_string());
        src = s.source();
    }
    out
}

/// The router echoing the key in an error message never gets it into the error (cpps-http
/// scrubs the client's own secrets from server texts).
#[tokio::test]
async fn an_echoed_key_is_scrubbed_from_errors() {
    let api = MockApi::start("").await;
    let client = Client::new(api.client(), cpps_vyos::SecretString::from(KEY.to_owned()));
    post("/retrieve")
        .respond_with(err(400, &format!("key '{KEY}' may not read this path")))
        .mount(api.server())
        .await;
    let e = client.exists(&["system"]).await.unwrap_err();
    let text = format!("{e} {e:?}");
    assert!(!text.contains(KEY), "{text}");
    assert_eq!(e.status(), Some(cpps_http::StatusCode::BAD_REQUEST));
}

/// vyatta-cfg `src/cnode/cnode-algorithm.cpp`: `showConfig` of a missing path prints
/// "Specified configuration path is not valid"; the API answers it as 400 (`retrieve_op` in vyos-1x
/// `src/services/api/rest/routers.py`, and in sagitta's `src/services/vyos-http-api-server`: a
/// `ConfigSessionError` is `error(400, str(e))`).
#[tokio::test]
async fn a_missing_path_is_not_found_and_answered() {
    let api = MockApi::start("").await;
    let client = Client::new(api.client(), cpps_vyos::SecretString::from(KEY.to_owned()));
    post("/retrieve")
        .respond_with(err(400, "Specified configuration path is not valid\n"))
        .mount(api.server())
        .await;
    let e = client
        .show_config_raw(&["protocols", "bgp"])
        .await
        .unwrap_err();
    assert!(e.is_not_found(), "{e:?}");
    assert_eq!(e.delivery(), cpps_http::Delivery::Answered);
    assert_eq!(e.status(), Some(cpps_http::StatusCode::BAD_REQUEST));
    let refused = Error::Config { reason: "x".into() };
    assert_eq!(refused.delivery(), cpps_http::Delivery::NotSent);
    assert!(!refused.is_not_found() && refused.status().is_none());
}

/// Audit N10: a batch refused as a whole changed nothing, even when one of its commands was
/// already in effect. `_configure_op` (vyos-1x `src/services/api/rest/routers.py`; `sagitta`
/// `src/services/vyos-http-api-server`) calls `session.discard()` when a `set` is refused
/// before the commit; the client compares the configuration read after the refusal with the one
/// read before the write. Failed first: `RefusedAfterCommit` with `Partly` ("part is live") on
/// 1.4 and `CommitConfirmNotInitialized` on 1.5.
#[tokio::test]
async fn a_batch_refused_as_a_whole_is_no_partial_commit() {
    for profile in [Profile::V14, Profile::V15] {
        let (_api, client, fake) = FakeRouter::new(profile, start_tree()).start().await;
        let cmds = vec![
            Command::set(["system", "host-name"], Some("sp-gw")),
            Command::set(["system", "host-name", "below"], Some("x")),
        ];
        let minutes = (profile == Profile::V15).then(|| NonZeroU32::new(5).unwrap());
        match client.configure(&cmds, minutes).await {
            Err(Error::Api { status: 400, .. }) if profile == Profile::V14 => {}
            Err(Error::CommitConfirmRefused { status: 400, .. }) if profile == Profile::V15 => {}
            other => panic!("{profile:?}: {other:?}"),
        }
        assert_eq!(fake.running(), start_tree(), "{profile:?}");
    }
}

/// Audit N9: nginx answers a write it gave up on with its own HTML page, 504 when
/// `proxy_read_timeout 600` ran out, 502 when the API went away (vyos-1x
/// `data/templates/https/nginx.default.j2`, both branches: `proxy_pass` to the API), while the
/// API's commit may go on. That is no answer from VyOS: the configuration is read back as after
/// a write without answer. Failed first: a plain `Error::Http`, with no read-back.
#[tokio::test]
async fn a_gateway_answer_to_a_write_is_read_back_like_a_timeout() {
    for status in [502u16, 504] {
        let (_api, client, fake) = FakeRouter::new(Profile::V14, start_tree()).start().await;
        fake.state.lock().unwrap().gateway_status = Some(status);
        let cmds = vec![Command::set(["system", "domain-name"], Some("example.net"))];
        match client.configure(&cmds, None).await {
            Err(e @ Error::WriteTimedOut { .. }) => {
                assert!(matches!(
                    e,
                    Error::WriteTimedOut {
                        endpoint: "configure",
                        landed: Landed::Yes,
                        ..
                    }
                ));
                assert_eq!(e.delivery(), cpps_http::Delivery::MaybeSent, "{status}");
            }
            other => panic!("{status}: {other:?}"),
        }
    }
}

/// Audit N5: a refused `load`/`merge` stays staged. `config_file_op` (vyos-1x
/// `src/services/api/rest/routers.py` on `current`; `sagitta` `src/services/vyos-http-api-server`)
/// answers a `ConfigSessionError` 400 without `session.discard()`, so what the failed commit left
/// stays in the API's one shared session (`ConfigSession(os.getpid())`) and the next
/// `/configure` from any client would commit it. Neither API has a discard operation, but
/// `_configure_op` discards the session when a command of its batch is refused, and it refuses
/// an unknown `op` before it sets anything (`'…' is not a valid operation`, same files): the
/// client sends that, and the error says the staged rest was discarded. Failed first: nothing
/// was discarded and the error did not say.
#[tokio::test]
async fn a_refused_merge_leaves_nothing_staged_and_says_so() {
    let (_api, client, fake) = FakeRouter::new(Profile::V15, start_tree()).start().await;
    fake.state.lock().unwrap().failing_subtree = Some(vec!["protocols".into()]);
    let inline = cpps_vyos::ConfigSource::InlineFromRouter(
        "protocols {\n    static {\n        route 203.0.113.0/24 {\n            blackhole\n        }\n    }\n}\nsystem {\n    time-zone UTC\n}\n"
            .to_owned(),
    );
    let e = client.merge(&inline, None).await.unwrap_err();
    let text = e.to_string();
    assert!(text.contains("Commit failed"), "{text}");
    assert!(text.contains(DISCARDED), "{text}");
    assert!(!fake.state.lock().unwrap().staged_left, "{text}");
    let discards: Vec<_> = fake
        .requests_to("configure")
        .iter()
        .map(|b| b["commands"][0]["op"].clone())
        .collect();
    assert_eq!(discards, [json!("discard")]);
}

/// A password set as plaintext never reads back as set: during the commit vyos-1x
/// `src/conf_mode/system_login.py` `generate()` replaces `plaintext-password P` with
/// `encrypted-password HASH` (`delete_cli_node`/`add_cli_node`; sagitta `my_delete`/`my_set`), and
/// `src/conf_mode/service_snmp.py` `generate()` does so for SNMPv3 `auth` and `privacy`. The
/// read-back takes a new hash where the plaintext was set as the change landing, and neither
/// the plaintext nor the hash shows in what the client reports.
#[tokio::test]
async fn on_both_versions_a_password_replaced_by_its_hash_reads_as_landed() {
    let batch = vec![
        Command::set(
            [
                "system",
                "login",
                "user",
                "ops",
                "authentication",
                "plaintext-password",
            ],
            Some("Hunter2-never-shown"),
        ),
        Command::set(
            [
                "service",
                "snmp",
                "v3",
                "user",
                "mon",
                "auth",
                "plaintext-password",
            ],
            Some("Snmp-secret-9"),
        ),
        Command::set(["system", "host-name"], Some("sp-gw2")),
    ];
    for profile in [Profile::V14, Profile::V15] {
        let (_api, client, fake) = FakeRouter::new(profile, start_tree()).start().await;
        let done = client.configure(&batch, None).await.unwrap();
        let running = fake.running();
        let hash = running
            .value(&[
                "system",
                "login",
                "user",
                "ops",
                "authentication",
                "encrypted-password",
            ])
            .unwrap()
            .to_owned();
        assert!(
            !running.exists(&[
                "system",
                "login",
                "user",
                "ops",
                "authentication",
                "plaintext-password"
            ]),
            "the fake replaces the plaintext as VyOS does"
        );
        assert_eq!(done.landed, Landed::Yes, "{profile:?}: {done:?}");
        assert_eq!(
            done.commands.iter().map(|c| c.landed).collect::<Vec<_>>(),
            [Some(true), Some(true), Some(true)],
            "{profile:?}"
        );
        let shown = format!("{done:?}");
        for secret in ["Hunter2-never-shown", "Snmp-secret-9", hash.as_str()] {
            assert!(!shown.contains(secret), "{profile:?}: {shown}");
        }
    }
}

/// Only a hash that the commit wrote counts: one equal to the hash read before the write (a
/// refused commit that left other changes, or an SNMP password set again, whose hash of the
/// password and engine id does not change) cannot tell whether the new password landed. The
/// secret itself is never compared with the hash.
#[test]
fn a_hash_unchanged_since_before_the_write_cannot_tell() {
    let plain = Command::set(
        [
            "system",
            "login",
            "user",
            "ops",
            "authentication",
            "plaintext-password",
        ],
        Some("Hunter2"),
    );
    let host = Command::set(["system", "host-name"], Some("sp-gw2"));
    let before = ConfigTree::parse_boot(
        "system {\n    host-name sp-gw\n    login {\n        user ops {\n            authentication {\n                encrypted-password \"$6$old$abc\"\n            }\n        }\n    }\n}\n",
    )
    .unwrap();
    let mut now = before.clone();
    now.apply(&host).unwrap();
    let (landed, per) =
        cpps_vyos::read_back_since(Some(&before), &now, &[plain.clone(), host.clone()]);
    assert_eq!(
        per.iter().map(|c| c.landed).collect::<Vec<_>>(),
        [None, Some(true)]
    );
    assert!(matches!(landed, Landed::Unknown { .. }), "{landed:?}");
    // A new hash where the plaintext was set: landed.
    now.apply(&Command::set(
        [
            "system",
            "login",
            "user",
            "ops",
            "authentication",
            "encrypted-password",
        ],
        Some("$6$new$def"),
    ))
    .unwrap();
    now.apply(&Command::delete(
        [
            "system",
            "login",
            "user",
            "ops",
            "authentication",
            "encrypted-password",
        ],
        Some("$6$old$abc"),
    ))
    .unwrap();
    let (landed, _) = cpps_vyos::read_back_since(Some(&before), &now, &[plain.clone(), host]);
    assert_eq!(landed, Landed::Yes);
    // With nothing to compare with, the plan cannot say the password is already in effect.
    let (_, per) = cpps_vyos::read_back(&before, &[plain]);
    assert_eq!(per[0].landed, None);
}
