//! `docs/documents-table.md` against the documents, the default topology and the catalogue:
//! every quote is verbatim in its document, every id it names exists, the states it gives are
//! the default topology's, and it covers every state label, pending item, decision row and review
//! criterion of the documents, found in them by their markers (emoji labels, the pending lists'
//! headings, the decision table's header, the criteria lists' introductions).

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::document;
use cpps_topology::model::{ComponentRef, State, Topology};
use cpps_topology::{default_topology, rules};

const ARCH: &str = "004_29bfc39840ca04c0.txt";
const ADR9: &str = "000_be2f9e2558fad79c.txt";

/// Review criteria the table may mark "not modelled": none today. A criterion added here must
/// also be marked so in the table (and the other way round).
const NOT_MODELLED: &[&str] = &[];

fn seed(name: &str) -> String {
    document(&format!("seeds/{name}"))
}

#[derive(Debug)]
struct Row {
    kind: String,
    document: &'static str,
    quote: String,
    modelled_by: Vec<String>,
    state: String,
    line: usize,
}

/// Splits a markdown table row on the `|` that are not escaped.
fn cells(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.trim().trim_start_matches('|').chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cur.push('|');
                chars.next();
            }
            '|' => out.push(std::mem::take(&mut cur).trim().to_owned()),
            c => cur.push(c),
        }
    }
    out
}

fn table() -> Vec<Row> {
    let text = document("documents-table.md");
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let c = cells(line);
        if c.len() != 5
            || ![
                "label",
                "pending",
                "planned",
                "decision",
                "criterion",
                "disagreement",
            ]
            .contains(&c[0].as_str())
        {
            continue;
        }
        let document = match c[1].as_str() {
            "004" => ARCH,
            "000" => ADR9,
            other => panic!("line {}: unknown document `{other}`", i + 1),
        };
        rows.push(Row {
            kind: c[0].clone(),
            document,
            quote: c[2].replace(" ⇥ ", "\t"),
            modelled_by: c[3].split(',').map(|s| s.trim().to_owned()).collect(),
            state: c[4].clone(),
            line: i + 1,
        });
    }
    rows
}

/// The units of a document that the table must cover, by kind.
struct Units {
    /// Each line must contain exactly one row's quote of the kind.
    exact: Vec<(&'static str, &'static str, String)>,
    /// Each line must contain at least one row's quote (a paragraph holding several criteria).
    some: Vec<(&'static str, &'static str, String)>,
}

const LABEL_MARKS: [&str; 6] = ["✅", "🚧", "❌", "🚫", "🔮", "⚠️"];

fn between<'a>(
    lines: &'a [&'a str],
    start: impl Fn(&str) -> bool,
    end: impl Fn(&str) -> bool,
) -> &'a [&'a str] {
    let from = lines
        .iter()
        .position(|l| start(l))
        .expect("the section's start is in the document")
        + 1;
    let to = lines[from..]
        .iter()
        .position(|l| end(l))
        .map_or(lines.len(), |n| from + n);
    &lines[from..to]
}

fn units() -> Units {
    let arch = seed(ARCH);
    let adr9 = seed(ADR9);
    let a: Vec<&str> = arch.lines().collect();
    let b: Vec<&str> = adr9.lines().collect();
    let mut exact = Vec::new();
    let mut some = Vec::new();
    let mut push = |kind, doc, l: &str| exact.push((kind, doc, l.trim().to_owned()));

    // The architecture's state labels: every line with a label mark.
    for l in &a {
        if LABEL_MARKS.iter().any(|m| l.contains(m)) {
            push("label", ARCH, l);
        }
    }
    // ADR-009's: the state column of its hardware table, what "O que NÃO se perde" and
    // "MultiKueue cross-site funciona com" mark ✅ as present, and SeaweedFS "já replicado".
    for l in between(
        &b,
        |l| l == "Hardware GPU disponível",
        |l| l.starts_with("Ou seja"),
    ) {
        if l.starts_with("| Franca |") || l.starts_with("| SP |") {
            push("label", ADR9, l);
        }
    }
    for l in between(
        &b,
        |l| l == "O que NÃO se perde",
        |l| l == "Análise honesta",
    ) {
        if l.contains('✅') {
            push("label", ADR9, l);
        }
    }
    // What MultiKueue needs (✅) and what it does not (❌ ClusterMesh).
    for l in between(
        &b,
        |l| l == "MultiKueue cross-site funciona com:",
        |l| l.starts_with("Pro batch GPU"),
    ) {
        if l.contains('✅') || l.contains('❌') {
            push("label", ADR9, l);
        }
    }
    for l in &b {
        if l.contains("já replicado cross-site") {
            push("label", ADR9, l);
        }
    }
    // ADR-009's "Implicações desse fato": what it marks ✅ (works) or ❌ (does not) of a GPU
    // cluster without Cilium.
    for l in between(
        &b,
        |l| l == "Implicações desse fato:",
        |l| l.starts_with("Pra MVP"),
    ) {
        if l.contains('✅') || l.contains('❌') {
            push("label", ADR9, l);
        }
    }
    // Where ADR-009 states the placement of its own clusters against itself or the
    // architecture: the header, the decision line, and the decision's diagram (one line of the
    // document holding two such statements: the main cluster's "(LXC priv.)" and the GPU
    // cluster's HAMi, so each has a row).
    for l in &b {
        if l.contains("Cilium em LXC é o caminho CPPS") || l.starts_with("Arquitetura (A) —") {
            push("label", ADR9, l);
        }
        if l.contains("(LXC priv.)") {
            some.push(("label", ADR9, l.trim().to_owned()));
        }
    }
    // Pending items: the lines of each "Pendências…"/"Decisões pendentes" list, and each
    // "Decisão pendente" line.
    let headings = [
        "Pendências:",
        "Pendências críticas:",
        "Pendências MVP:",
        "Decisões pendentes:",
    ];
    let mut i = 0;
    while i < a.len() {
        if headings.contains(&a[i]) {
            i += 1;
            while i < a.len() && a[i].trim().is_empty() {
                i += 1;
            }
            while i < a.len() && !a[i].trim().is_empty() {
                push("pending", ARCH, a[i]);
                i += 1;
            }
        } else {
            if a[i].starts_with("Decisão pendente") {
                push("pending", ARCH, a[i]);
            }
            i += 1;
        }
    }
    // Planned items outside the pending lists: the connectivity evolution's next steps, the
    // overview's future roadmap and the "Expansão futura" list of the architecture; ADR-009's
    // GPU platform list, its MVP recommendation for service discovery, and the shared storage and
    // models of its Franca provisioning paragraph.
    for l in &a {
        if ["Próximo:", "Futuro:", "Fallback admin:"]
            .iter()
            .any(|p| l.starts_with(p))
        {
            push("planned", ARCH, l);
        }
    }
    for l in between(
        &a,
        |l| l.ends_with("Roadmap futuro inclui:"),
        |l| l == "Princípios",
    ) {
        if !l.trim().is_empty() {
            push("planned", ARCH, l);
        }
    }
    for l in between(
        &a,
        |l| l.starts_with("A modularidade entre camadas permite expandir"),
        |l| l == "Próximos passos",
    ) {
        if !l.trim().is_empty() {
            push("planned", ARCH, l);
        }
    }
    for l in between(&b, |l| l == "Plataforma:", |l| !l.starts_with("- ")) {
        push("planned", ADR9, l.trim_start_matches("- "));
    }
    // Every "Recomendação MVP" of both documents: what the MVP is planned to use.
    for l in &a {
        if l.starts_with("Recomendação MVP:") {
            push("planned", ARCH, l);
        }
    }
    for l in &b {
        if l.contains("Recomendação MVP: Opção 1 (Traefik)") {
            push("planned", ADR9, l);
        }
        if l.contains("Modelos compartilhados via MLflow centralizado") {
            some.push(("planned", ADR9, l.trim().to_owned()));
        }
    }
    // The decision table: every row under its header.
    for l in between(
        &a,
        |l| l == "Tópico\tDecisão\tAlternativa rejeitada\tMotivo\tADR",
        |l| l.trim().is_empty(),
    ) {
        push("decision", ARCH, l);
    }
    // ADR-009's criteria: the two bullet lists, and the paragraph of "Quando o cluster GPU Franca
    // for provisionado".
    for l in between(
        &b,
        |l| l.starts_with("Mudar pra arquitetura (B)"),
        |l| !l.starts_with("- "),
    ) {
        push("criterion", ADR9, l.trim_start_matches("- "));
    }
    for l in between(
        &b,
        |l| l.starts_with("Reabrir a questão"),
        |l| !l.starts_with("- "),
    ) {
        push("criterion", ADR9, l.trim_start_matches("- "));
    }
    // "As features Cilium perdidas no GPU seriam realmente relevantes se:" and the condition of
    // adding Cilium to the GPU cluster ("Adicionar quando ClusterMesh … virar útil").
    for l in between(
        &b,
        |l| l.starts_with("As features Cilium perdidas no GPU"),
        |l| !l.starts_with("- "),
    ) {
        push("criterion", ADR9, l.trim_start_matches("- "));
    }
    for l in &b {
        if l.starts_with("- Adicionar quando ClusterMesh") {
            push("criterion", ADR9, l.trim_start_matches("- "));
        }
    }
    for l in between(
        &b,
        |l| l == "Quando o cluster GPU Franca for provisionado",
        |l| l == "Alternativas rejeitadas",
    ) {
        some.push(("criterion", ADR9, l.trim().to_owned()));
    }
    Units { exact, some }
}

#[test]
fn the_documents_have_the_counted_items() {
    let u = units();
    let count = |kind: &str, doc: &str| {
        u.exact
            .iter()
            .filter(|(k, d, _)| *k == kind && *d == doc)
            .count()
    };
    assert_eq!(count("label", ARCH), 60);
    assert_eq!(count("label", ADR9), 19);
    let some = |kind: &str| u.some.iter().filter(|(k, _, _)| *k == kind).count();
    assert_eq!(some("label"), 1, "the decision's diagram");
    assert_eq!(count("pending", ARCH), 29);
    assert_eq!(count("planned", ARCH), 12);
    assert_eq!(count("planned", ADR9), 7);
    assert_eq!(
        some("planned"),
        1,
        "the provisioning paragraph's shared storage and models"
    );
    assert_eq!(count("decision", ARCH), 14);
    assert_eq!(count("criterion", ADR9), 14);
    assert_eq!(some("criterion"), 3, "the provisioning paragraph's lines");
}

#[test]
fn every_quote_is_verbatim_and_the_table_covers_every_item_once() {
    let rows = table();
    assert!(!rows.is_empty());
    let mut failures = Vec::new();
    let texts: BTreeMap<&str, String> = [(ARCH, seed(ARCH)), (ADR9, seed(ADR9))]
        .into_iter()
        .collect();
    for r in &rows {
        if r.quote.chars().count() < 8 || !texts[r.document].contains(&r.quote) {
            failures.push(format!(
                "line {}: «{}» is not in {}",
                r.line, r.quote, r.document
            ));
        }
    }
    let u = units();
    // A row quotes a line whole, or a part of it when no row quotes that line whole
    // ("Estado: ❌ Não implementado." is a whole line and the start of two others).
    let whole: BTreeSet<&str> = rows.iter().map(|r| r.quote.as_str()).collect();
    let quotes =
        |line: &str, quote: &str| line == quote || (line.contains(quote) && !whole.contains(line));
    let matching = |kind: &str, doc: &str, line: &str| -> Vec<usize> {
        rows.iter()
            .filter(|r| r.kind == kind && r.document == doc && quotes(line, &r.quote))
            .map(|r| r.line)
            .collect()
    };
    for (kind, doc, line) in &u.exact {
        let m = matching(kind, doc, line);
        if m.len() != 1 {
            failures.push(format!(
                "{kind} «{line}» of {doc}: {} rows of the table ({m:?})",
                m.len()
            ));
        }
    }
    for (kind, doc, line) in &u.some {
        if matching(kind, doc, line).is_empty() {
            failures.push(format!("{kind} «{line}» of {doc}: no row of the table"));
        }
    }
    // Every row quotes one item of its kind (no stray rows). A disagreement row quotes a sentence
    // that no marker finds (a component list's "1 por cluster"): its record is what is checked.
    for r in rows.iter().filter(|r| r.kind != "disagreement") {
        let n = u
            .exact
            .iter()
            .chain(&u.some)
            .filter(|(k, d, l)| *k == r.kind && *d == r.document && quotes(l, &r.quote))
            .count();
        if n != 1 {
            failures.push(format!(
                "line {}: «{}» matches {n} {} items",
                r.line, r.quote, r.kind
            ));
        }
    }
    let criteria = rows.iter().filter(|r| r.kind == "criterion").count();
    // 5 + 4 of the two review lists, 4 of "relevantes se", 1 "Adicionar quando", and the 7 of
    // the Franca provisioning paragraph.
    if criteria != 21 {
        failures.push(format!("{criteria} criteria rows, expected 21"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn component_state(t: &Topology, c: ComponentRef<'_>, id: &str, state: &str) -> Result<(), String> {
    let m = c.meta();
    let ok = match state {
        "validated" => m.state == State::Validated && !m.deferred,
        "declared" => m.state == State::Declared && !m.deferred,
        "desired" => m.state == State::Desired && !m.deferred,
        "deferred" => m.state == State::Desired && m.deferred,
        "ha declared" => {
            m.state == State::Validated
                && t.traefik_instance(&id.parse().map_err(|_| id.to_owned())?)
                    .is_some_and(|x| x.ha && x.ha_state == Some(State::Declared))
        }
        // Components named next to a record (rejected, contradiction, pending, decision, rule)
        // are context; their states are the other rows'.
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{id} is {}{}, the table says {state}",
            m.state,
            if m.deferred { " (deferred)" } else { "" }
        ))
    }
}

/// Whether the record `id` of the row's state holds the row's quote: `None` when the default
/// topology has no such record.
fn record_holds(t: &Topology, r: &Row, id: &str) -> Option<bool> {
    match r.state.as_str() {
        "rejected" | "decision" => t.rejected().iter().find(|x| x.id == id).map(|x| {
            let row = [
                x.topic.as_str(),
                x.decision.as_str(),
                x.alternative.as_str(),
                x.reason.as_str(),
                x.adr.as_deref().unwrap_or("—"),
            ]
            .join("\t");
            r.state != "decision" || row == r.quote
        }),
        "contradiction" => t.contradictions().iter().find(|x| x.id == id).map(|x| {
            x.claims
                .iter()
                .any(|c| r.quote.contains(&c.quote.text) || c.quote.text.contains(&r.quote))
        }),
        "pending" => t
            .pending()
            .iter()
            .find(|x| x.id == id)
            .map(|x| x.quote.text == r.quote && x.quote.source == r.document),
        _ => t.pending().iter().find(|x| x.id == id).map(|_| true),
    }
}

/// What is wrong with the row's state for its kind: a criterion is a rule or tolerated as not
/// modelled, a label names its rule or has a known state, and planned, pending and decision
/// rows have their own states.
fn kind_state_failures(r: &Row, rules: &BTreeSet<&str>, failures: &mut Vec<String>) {
    match r.kind.as_str() {
        "criterion" => {
            let named_rule = r.modelled_by.iter().any(|id| rules.contains(id.as_str()));
            let tolerated = NOT_MODELLED.contains(&r.quote.as_str());
            match r.state.as_str() {
                "rule" if named_rule && !tolerated => {}
                "not modelled" if tolerated => {}
                other => failures.push(format!(
                    "line {}: criterion «{}» is `{other}` (a rule named: {named_rule}, tolerated: {tolerated})",
                    r.line, r.quote
                )),
            }
        }
        "label"
            if r.state == "rule" && !r.modelled_by.iter().any(|id| rules.contains(id.as_str())) =>
        {
            failures.push(format!(
                "line {}: a label of state `rule` names the rule that models it",
                r.line
            ));
        }
        "label" if r.state == "rule" => {}
        "label"
            if ![
                "validated",
                "declared",
                "desired",
                "deferred",
                "ha declared",
                "rejected",
                "contradiction",
            ]
            .contains(&r.state.as_str()) =>
        {
            failures.push(format!(
                "line {}: unknown label state `{}`",
                r.line, r.state
            ));
        }
        "planned"
            if !["validated", "declared", "desired", "deferred"].contains(&r.state.as_str()) =>
        {
            failures.push(format!("line {}: state `{}`", r.line, r.state))
        }
        "pending" if r.state != "pending" => {
            failures.push(format!("line {}: state `{}`", r.line, r.state))
        }
        "decision" if r.state != "decision" => {
            failures.push(format!("line {}: state `{}`", r.line, r.state))
        }
        _ => {}
    }
}

#[test]
fn every_named_id_exists_and_states_agree_with_the_default_topology() {
    let t = default_topology();
    let rules: BTreeSet<&str> = rules::catalogue().iter().map(|r| r.id.as_str()).collect();
    let mut failures = Vec::new();
    for r in table() {
        let mut records = 0;
        for id in &r.modelled_by {
            if rules.contains(id.as_str()) {
                continue;
            }
            if let Some(c) = t.component(id) {
                if let Err(e) = component_state(&t, c, id, &r.state) {
                    failures.push(format!("line {}: {e}", r.line));
                }
                continue;
            }
            let record = record_holds(&t, &r, id);
            match record {
                Some(true) => records += 1,
                Some(false) => failures.push(format!(
                    "line {}: record {id} does not hold «{}»",
                    r.line, r.quote
                )),
                None => failures.push(format!(
                    "line {}: `{id}` is no rule, component or {} record of the default topology",
                    r.line, r.state
                )),
            }
        }
        let needs_record =
            ["rejected", "decision", "contradiction", "pending"].contains(&r.state.as_str());
        if r.kind == "disagreement" && r.state != "contradiction" {
            failures.push(format!(
                "line {}: a disagreement row is a `contradiction`",
                r.line
            ));
        }
        if needs_record && records == 0 {
            failures.push(format!(
                "line {}: a {} row names its record",
                r.line, r.state
            ));
        }
        kind_state_failures(&r, &rules, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_record_of_the_default_is_in_the_table_and_quotes_its_document() {
    let t = default_topology();
    let rows = table();
    let named: BTreeSet<&str> = rows
        .iter()
        .flat_map(|r| r.modelled_by.iter().map(String::as_str))
        .collect();
    let texts: BTreeMap<&str, String> = [(ARCH, seed(ARCH)), (ADR9, seed(ADR9))]
        .into_iter()
        .collect();
    let mut failures = Vec::new();
    let verbatim = |source: &str, text: &str| texts.get(source).is_some_and(|d| d.contains(text));
    for p in t.pending() {
        if !named.contains(p.id.as_str()) {
            failures.push(format!("pending {} is in no row", p.id));
        }
        if !verbatim(&p.quote.source, &p.quote.text) {
            failures.push(format!(
                "pending {}: «{}» not in {}",
                p.id, p.quote.text, p.quote.source
            ));
        }
    }
    for r in t.rejected() {
        if !named.contains(r.id.as_str()) {
            failures.push(format!("rejected {} is in no row", r.id));
        }
    }
    for c in t.contradictions() {
        if !named.contains(c.id.as_str()) {
            failures.push(format!("contradiction {} is in no row", c.id));
        }
        let sources: BTreeSet<&str> = c.claims.iter().map(|x| x.quote.source.as_str()).collect();
        if sources.len() < 2 {
            failures.push(format!("contradiction {}: both documents are quoted", c.id));
        }
        for claim in &c.claims {
            if !verbatim(&claim.quote.source, &claim.quote.text) {
                failures.push(format!(
                    "contradiction {}: «{}» not in {}",
                    c.id, claim.quote.text, claim.quote.source
                ));
            }
        }
    }
    // The placement claims GPU-002 reports, too.
    for k in t.k3s_clusters() {
        for claim in &k.placement_claims {
            // Verbatim, tabs included: no other spelling of a table row is accepted.
            if !verbatim(&claim.source, &claim.quote) {
                failures.push(format!(
                    "{}: «{}» not in {}",
                    k.id, claim.quote, claim.source
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The number just before `what` in `text` (`"81 state labels"` → 81).
fn count_before(text: &str, what: &str) -> usize {
    let at = text
        .find(what)
        .unwrap_or_else(|| panic!("no `{what}` in {text}"));
    let digits: String = text[..at]
        .trim_end()
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number before `{what}`"))
}

/// The counts the table's text states are the table's own rows, per kind and document.
#[test]
fn the_stated_counts_are_the_rows_of_the_table() {
    let doc = document("documents-table.md");
    let start = doc
        .find("Counts, as rows of this table:")
        .expect("the counts");
    let text: String = doc[start..]
        .split("\n\n")
        .next()
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let rows = table();
    let of = |kind: &str, document: Option<&str>| {
        rows.iter()
            .filter(|r| r.kind == kind && document.is_none_or(|d| r.document == d))
            .count()
    };
    let labels = &text[text.find("state labels").unwrap()..];
    let planned = &text[text.find("planned items").unwrap()..];
    assert_eq!(count_before(&text, "state labels"), of("label", None));
    assert_eq!(
        count_before(labels, "of the architecture"),
        of("label", Some(ARCH))
    );
    assert_eq!(count_before(labels, "of ADR-009"), of("label", Some(ADR9)));
    assert_eq!(count_before(&text, "pending items"), of("pending", None));
    assert_eq!(count_before(&text, "planned items"), of("planned", None));
    assert_eq!(
        count_before(planned, "of the architecture"),
        of("planned", Some(ARCH))
    );
    assert_eq!(
        count_before(planned, "of ADR-009"),
        of("planned", Some(ADR9))
    );
    assert_eq!(count_before(&text, "decision rows"), of("decision", None));
    assert_eq!(
        count_before(&text, "review criteria"),
        of("criterion", None)
    );
}
