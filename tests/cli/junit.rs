//! The probe's JUnit XML, checked in Rust (issue 55, item 4; issue 50): a strict XML 1.0
//! parser (roxmltree) reads it, and [`check_junit`] applies the rules
//! tests/fixtures/junit.xsd states (which elements, nested how and in what order, which
//! attributes, which are required, which are counts or seconds). `cargo test` needs no
//! Python. Then the property: any server name and any check detail, hostile or not,
//! yields a document that parses, keeps its schema, and has exactly one `<testcase>` per
//! check and modelled build, with its counts right.

use proptest::prelude::*;
use roxmltree::{Document, Node};

use mcplogs::probe::{CONTRACT_BUILDS, ContractCheck};
use mcplogs::redact::Redactor;
use mcplogs::render::probe::{JunitSuite, junit_document};

/// What one attribute of an element may hold (junit.xsd's simple types).
#[derive(Clone, Copy)]
enum Kind {
    /// `xs:string`
    Text,
    /// `count`: `xs:nonNegativeInteger`
    Count,
    /// `seconds`: `xs:decimal`, at least 0
    Seconds,
}

/// An attribute the schema declares: its name, its type, whether it is required.
type Attr = (&'static str, Kind, bool);

/// The attributes junit.xsd declares on each element (none other is allowed: no
/// `xs:anyAttribute` in it).
fn declared(element: &str) -> &'static [Attr] {
    use Kind::*;
    match element {
        "testsuites" => &[
            ("name", Text, false),
            ("tests", Count, true),
            ("failures", Count, true),
            ("errors", Count, true),
            ("skipped", Count, false),
            ("time", Seconds, false),
        ],
        "testsuite" => &[
            ("name", Text, true),
            ("tests", Count, true),
            ("failures", Count, true),
            ("errors", Count, true),
            ("skipped", Count, false),
            ("time", Seconds, false),
            ("timestamp", Text, false),
            ("hostname", Text, false),
        ],
        "testcase" => &[
            ("name", Text, true),
            ("classname", Text, true),
            ("time", Seconds, false),
        ],
        "failure" | "error" => &[("message", Text, false), ("type", Text, false)],
        "skipped" => &[("message", Text, false)],
        "property" => &[("name", Text, true), ("value", Text, true)],
        _ => &[],
    }
}

/// `xs:nonNegativeInteger` (after the whitespace collapse every non-string type has).
fn is_count(v: &str) -> bool {
    let d = v.trim().strip_prefix('+').unwrap_or(v.trim());
    !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
}

/// `xs:decimal` with `minInclusive 0`: digits with at most one point, a sign allowed,
/// and a minus sign only on zero.
fn is_seconds(v: &str) -> bool {
    let v = v.trim();
    let (negative, d) = match v.as_bytes().first() {
        Some(b'-') => (true, &v[1..]),
        Some(b'+') => (false, &v[1..]),
        _ => (false, v),
    };
    let (int, frac) = d.split_once('.').unwrap_or((d, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let well_formed = !(int.is_empty() && frac.is_empty()) && digits(int) && digits(frac);
    well_formed && (!negative || d.bytes().all(|b| matches!(b, b'0' | b'.')))
}

fn check_attributes(n: Node) -> Result<(), String> {
    let name = n.tag_name().name();
    let decl = declared(name);
    for a in n.attributes() {
        let Some(&(_, kind, _)) = decl
            .iter()
            .find(|(d, _, _)| a.namespace().is_none() && *d == a.name())
        else {
            return Err(format!("<{name}> has an undeclared attribute {}", a.name()));
        };
        let ok = match kind {
            Kind::Text => true,
            Kind::Count => is_count(a.value()),
            Kind::Seconds => is_seconds(a.value()),
        };
        if !ok {
            return Err(format!(
                "<{name}> {}=\"{}\" is not a {}",
                a.name(),
                a.value(),
                if matches!(kind, Kind::Count) {
                    "non-negative integer"
                } else {
                    "non-negative decimal"
                }
            ));
        }
    }
    for (d, _, required) in decl {
        if *required && n.attribute(*d).is_none() {
            return Err(format!("<{name}> lacks its required attribute {d}"));
        }
    }
    Ok(())
}

/// The element children of `n`, and an error if it holds text other than white space
/// (element-only content).
fn elements_only<'a, 'i>(n: Node<'a, 'i>) -> Result<Vec<Node<'a, 'i>>, String> {
    let mut out = Vec::new();
    for c in n.children() {
        if c.is_element() {
            out.push(c);
        } else if c.is_text() && !c.text().unwrap_or("").trim().is_empty() {
            return Err(format!("<{}> holds text", n.tag_name().name()));
        }
    }
    Ok(out)
}

/// No element child: text only (`xs:string`, and the mixed types without a model).
fn text_only(n: Node) -> Result<(), String> {
    match n.children().find(Node::is_element) {
        Some(c) => Err(format!(
            "<{}> may hold only text, not <{}>",
            n.tag_name().name(),
            c.tag_name().name()
        )),
        None => Ok(()),
    }
}

/// `children`, read as a sequence of `(element name, at most one)` groups in order: each
/// group's element may occur once (`true`) or any number of times (`false`), every
/// group is optional. A name in `choice` counts for the group of its first member.
fn sequence(parent: &str, children: &[Node], model: &[(&[&str], bool)]) -> Result<(), String> {
    let mut at = 0;
    for (names, once) in model {
        let mut seen = 0;
        while at < children.len() && names.contains(&children[at].tag_name().name()) {
            seen += 1;
            at += 1;
            if *once && seen > 1 {
                return Err(format!(
                    "<{parent}> holds more than one of {}",
                    names.join("/")
                ));
            }
        }
    }
    match children.get(at) {
        Some(c) => Err(format!(
            "<{parent}> may not hold <{}> there",
            c.tag_name().name()
        )),
        None => Ok(()),
    }
}

fn check_element(n: Node) -> Result<(), String> {
    let name = n.tag_name().name();
    if n.tag_name().namespace().is_some() {
        return Err(format!(
            "<{name}> is in a namespace; the schema's are in none"
        ));
    }
    check_attributes(n)?;
    match name {
        "testsuites" => {
            let kids = elements_only(n)?;
            sequence(name, &kids, &[(&["testsuite"], false)])?;
            kids.into_iter().try_for_each(check_element)
        }
        "testsuite" => {
            let kids = elements_only(n)?;
            sequence(
                name,
                &kids,
                &[
                    (&["properties"], true),
                    (&["testcase"], false),
                    (&["system-out"], true),
                    (&["system-err"], true),
                ],
            )?;
            kids.into_iter().try_for_each(check_element)
        }
        "properties" => {
            let kids = elements_only(n)?;
            sequence(name, &kids, &[(&["property"], false)])?;
            kids.into_iter().try_for_each(check_element)
        }
        "property" => {
            let kids = elements_only(n)?;
            sequence(name, &kids, &[])
        }
        "testcase" => {
            let kids = elements_only(n)?;
            sequence(
                name,
                &kids,
                &[
                    (&["failure", "error", "skipped"], true),
                    (&["system-out"], true),
                    (&["system-err"], true),
                ],
            )?;
            kids.into_iter().try_for_each(check_element)
        }
        "failure" | "error" | "skipped" | "system-out" | "system-err" => text_only(n),
        other => Err(format!("<{other}> is not an element of the schema")),
    }
}

/// The counts of a checked document: test cases, and those failed and skipped.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Counts {
    pub tests: usize,
    pub failures: usize,
    pub skipped: usize,
}

/// `xml` parsed (well-formed XML 1.0, no DTD) and checked against the rules of
/// tests/fixtures/junit.xsd: the root `<testsuites>`, the elements nested and ordered as
/// the schema says, no undeclared attribute, every required one present, counts and
/// seconds of the right form; the test cases counted.
pub(crate) fn check_junit(xml: &str) -> Result<Counts, String> {
    let doc = Document::parse(xml).map_err(|e| format!("not well-formed XML: {e}"))?;
    let root = doc.root_element();
    if root.tag_name().name() != "testsuites" {
        return Err(format!(
            "the root element is <{}>, not <testsuites>",
            root.tag_name().name()
        ));
    }
    check_element(root)?;
    let count = |name: &str| {
        root.descendants()
            .filter(|n| n.is_element() && n.tag_name().name() == name)
            .count()
    };
    Ok(Counts {
        tests: count("testcase"),
        failures: count("failure"),
        skipped: count("skipped"),
    })
}

/// Fails (`not valid JUnit XML: …`) unless [`check_junit`] accepts `xml`.
#[track_caller]
pub(crate) fn assert_valid_junit(xml: &str) {
    if let Err(e) = check_junit(xml) {
        panic!("not valid JUnit XML: {e}\n{xml}");
    }
}

/// A document of the schema's every element, with each optional part present.
const FULL: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- a comment -->
<testsuites name="all" tests="3" failures="1" errors="1" skipped="1" time="1.5">
  <testsuite name="s" tests="3" failures="1" errors="1" skipped="1" time="0" timestamp="t" hostname="h">
    <properties><property name="k" value="v"/></properties>
    <testcase name="a" classname="c" time="0.25"><failure message="m" type="t">why &amp; how</failure><system-out>o</system-out><system-err>e</system-err></testcase>
    <testcase name="b" classname="c"><error message="m">x</error></testcase>
    <testcase name="c" classname="c"><skipped message="n/a"/></testcase>
    <system-out>out</system-out>
    <system-err>err</system-err>
  </testsuite>
  <testsuite name="empty" tests="0" failures="0" errors="0"/>
</testsuites>
"#;

/// The checker accepts the schema's whole vocabulary, and counts it.
#[test]
fn the_junit_checker_accepts_every_part_of_the_schema() {
    assert_eq!(
        check_junit(FULL),
        Ok(Counts {
            tests: 3,
            failures: 1,
            skipped: 1
        })
    );
}

/// The checker can fail: each document breaks one rule of junit.xsd (or of XML 1.0),
/// and each is refused, saying which.
#[test]
fn the_junit_checker_refuses_each_broken_rule() {
    let broken: &[(&str, &str, &str)] = &[
        (
            "a suite without its counts",
            r#"<testsuites tests="1" failures="0" errors="0"><testsuite name="x"><testcase name="a" classname="b"/></testsuite></testsuites>"#,
            "lacks its required attribute tests",
        ),
        (
            "a bidi marker written raw in an attribute",
            "<testsuites tests=\"0\" failures=\"0\" errors=\"0\" name=\"a<U+202E>b\"/>",
            "not well-formed",
        ),
        (
            "a control character",
            "<testsuites tests=\"0\" failures=\"0\" errors=\"0\" name=\"a\u{1}b\"/>",
            "not well-formed",
        ),
        (
            "U+FFFE",
            "<testsuites tests=\"0\" failures=\"0\" errors=\"0\" name=\"a\u{fffe}b\"/>",
            "not well-formed",
        ),
        (
            "an unclosed element",
            r#"<testsuites tests="0" failures="0" errors="0">"#,
            "not well-formed",
        ),
        (
            "another root",
            r#"<testsuite name="x" tests="0" failures="0" errors="0"/>"#,
            "not <testsuites>",
        ),
        (
            "a test case outside a suite",
            r#"<testsuites tests="1" failures="0" errors="0"><testcase name="a" classname="b"/></testsuites>"#,
            "may not hold <testcase>",
        ),
        (
            "an element the schema does not have",
            r#"<testsuites tests="1" failures="0" errors="0"><testsuite name="x" tests="1" failures="0" errors="0"><testcase name="a" classname="b"><x/></testcase></testsuite></testsuites>"#,
            "may not hold <x>",
        ),
        (
            "a test case without its class name",
            r#"<testsuites tests="1" failures="0" errors="0"><testsuite name="x" tests="1" failures="0" errors="0"><testcase name="a"/></testsuite></testsuites>"#,
            "lacks its required attribute classname",
        ),
        (
            "a count that is not a number",
            r#"<testsuites tests="one" failures="0" errors="0"/>"#,
            "is not a non-negative integer",
        ),
        (
            "a negative count",
            r#"<testsuites tests="-1" failures="0" errors="0"/>"#,
            "is not a non-negative integer",
        ),
        (
            "a negative time",
            r#"<testsuites tests="0" failures="0" errors="0" time="-0.5"/>"#,
            "is not a non-negative decimal",
        ),
        (
            "a time that is not a decimal",
            r#"<testsuites tests="0" failures="0" errors="0" time="1e3"/>"#,
            "is not a non-negative decimal",
        ),
        (
            "an undeclared attribute",
            r#"<testsuites tests="0" failures="0" errors="0" status="ok"/>"#,
            "undeclared attribute status",
        ),
        (
            "two results in one test case",
            r#"<testsuites tests="1" failures="1" errors="0"><testsuite name="x" tests="1" failures="1" errors="0"><testcase name="a" classname="b"><failure/><skipped/></testcase></testsuite></testsuites>"#,
            "more than one of failure/error/skipped",
        ),
        (
            "output before the result",
            r#"<testsuites tests="1" failures="1" errors="0"><testsuite name="x" tests="1" failures="1" errors="0"><testcase name="a" classname="b"><system-out/><failure/></testcase></testsuite></testsuites>"#,
            "may not hold <failure> there",
        ),
        (
            "an element inside a failure",
            r#"<testsuites tests="1" failures="1" errors="0"><testsuite name="x" tests="1" failures="1" errors="0"><testcase name="a" classname="b"><failure><testcase name="forged" classname="x"/></failure></testcase></testsuite></testsuites>"#,
            "may hold only text",
        ),
        (
            "text where only elements go",
            r#"<testsuites tests="0" failures="0" errors="0">stray</testsuites>"#,
            "holds text",
        ),
        (
            "an element in a namespace",
            r#"<testsuites xmlns="urn:x" tests="0" failures="0" errors="0"/>"#,
            "is in a namespace",
        ),
        (
            "a document type declaration",
            r#"<!DOCTYPE testsuites [<!ENTITY x "y">]><testsuites tests="0" failures="0" errors="0"/>"#,
            "not well-formed",
        ),
    ];
    for (what, xml, says) in broken {
        match check_junit(xml) {
            Ok(c) => panic!("{what}: accepted ({c:?}): {xml}"),
            Err(e) => assert!(e.contains(says), "{what}: refused as {e:?}, not {says:?}"),
        }
    }
}

/// The assertion the other tests use fails with the checker's reason.
#[test]
#[should_panic(expected = "not valid JUnit XML")]
fn the_junit_schema_refuses_a_suite_without_its_counts() {
    assert_valid_junit(
        "<?xml version=\"1.0\"?>\n<testsuites tests=\"1\" failures=\"0\" errors=\"0\"><testsuite name=\"x\"><testcase name=\"a\" classname=\"b\"/></testsuite></testsuites>\n",
    );
}

/// Text a server or a configuration controls: any characters, weighted towards XML's
/// own (`<`, `&`, quotes, `]]>`), controls, bidi controls and the non-characters XML 1.0
/// forbids, and whole attempts at closing an attribute to forge a test case.
fn hostile() -> impl Strategy<Value = String> {
    let c = prop_oneof![
        4 => any::<char>(),
        2 => prop::sample::select(vec![
            '<', '>', '&', '"', '\'', ']', '/', '=', ';', '#', '\t', '\n', '\r', '\u{0}',
            '\u{1}', '\u{1b}', '\u{7f}', '\u{85}', '\u{9b}', '\u{202e}', '\u{2066}',
            '\u{fffe}', '\u{ffff}', '\u{feff}', '\u{10ffff}',
        ]),
    ];
    prop_oneof![
        3 => prop::collection::vec(c, 0..40).prop_map(String::from_iter),
        1 => prop::sample::select(vec![
            "\"/><testcase name=\"x\" classname=\"forged\"/><testcase name=\"y",
            "]]></failure><testcase name=\"x\" classname=\"y\"/><![CDATA[",
            "&amp;&#x1;&#xFFFE;&lt;U+202E&gt;<U+202E>",
            "x' classname='forged",
            "-->\n<!-- <testcase name=\"x\" classname=\"y\"/>",
        ])
        .prop_map(String::from),
    ]
}

fn check() -> impl Strategy<Value = ContractCheck> {
    (
        prop::sample::select(vec![
            "pagination",
            "tools-capable-handshake",
            "unique-names",
        ]),
        prop::option::of(any::<bool>()),
        hostile(),
        prop::sample::subsequence(CONTRACT_BUILDS.to_vec(), 0..=CONTRACT_BUILDS.len()),
    )
        .prop_map(|(name, passed, detail, builds)| ContractCheck {
            name,
            passed,
            detail,
            builds,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any server names and check details, redacted or not: the document parses, keeps
    /// the schema, holds one test case per check and modelled build (none forged, none
    /// lost), each failure and skip counted as the checks say, and a name without a
    /// character to escape reads back as it was configured.
    #[test]
    fn junit_is_well_formed_and_complete_for_any_text(
        suites in prop::collection::vec((hostile(), prop::collection::vec(check(), 0..4)), 0..4),
        redact in any::<bool>(),
    ) {
        let r = if redact { Redactor::secrets_only(std::iter::empty()) } else { Redactor::disabled() };
        let parts: Vec<JunitSuite> = suites
            .iter()
            .map(|(server, checks)| JunitSuite { server, secs: 0.5, checks })
            .collect();
        let xml = junit_document(&parts, &r);
        let counts = check_junit(&xml).map_err(|e| TestCaseError::fail(format!("{e}\n{xml}")))?;
        let b = CONTRACT_BUILDS.len();
        let checks = || suites.iter().flat_map(|(_, c)| c);
        let failures = checks()
            .filter(|c| c.passed == Some(false))
            .map(|c| CONTRACT_BUILDS.iter().filter(|v| c.builds.contains(v)).count())
            .sum::<usize>();
        let skipped = checks().filter(|c| c.passed.is_none()).count() * b;
        prop_assert_eq!(counts, Counts { tests: checks().count() * b, failures, skipped });
        prop_assert!(!mcplogs::text::sanitize::has_raw_control(&xml), "{}", xml);
        let doc = Document::parse(&xml).unwrap();
        let names: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("testsuite"))
            .map(|n| n.attribute("name").unwrap())
            .collect();
        prop_assert_eq!(names.len(), suites.len());
        for ((server, _), shown) in suites.iter().zip(names) {
            let plain = !server.chars().any(|c| {
                mcplogs::text::sanitize::is_unsafe(c) || matches!(c, '\u{fffe}' | '\u{ffff}')
            });
            if plain && !redact {
                prop_assert_eq!(shown, format!("mcplogs probe --contract: {server}"));
            }
        }
    }
}

/// Issue 50's reproduction, in the renderer: a configured name holding U+202E and an
/// attempt to close the attribute is one suite, its marker escaped, nothing forged.
#[test]
fn a_bidi_control_in_a_server_name_is_escaped_in_junit() {
    let checks = vec![ContractCheck {
        name: "pagination",
        passed: None,
        detail: "not checked: ]]> \u{202e}".into(),
        builds: CONTRACT_BUILDS.to_vec(),
    }];
    let server = "evil\u{202e}\"/><testcase name=\"x";
    let xml = junit_document(
        &[JunitSuite {
            server,
            secs: 0.0,
            checks: &checks,
        }],
        &Redactor::secrets_only(std::iter::empty()),
    );
    let counts = check_junit(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    assert_eq!(counts.tests, CONTRACT_BUILDS.len(), "{xml}");
    assert!(
        xml.contains("evil&lt;U+202E&gt;&quot;/&gt;&lt;testcase name=&quot;x"),
        "{xml}"
    );
    assert!(
        !xml.contains('\u{202e}') && !xml.contains("<U+202E>"),
        "{xml}"
    );
}
