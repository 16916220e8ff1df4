//! Every occurrence of a set of literal needles in a text, overlapping ones too, found
//! with the automaton's prefilter.
//!
//! An overlapping Aho-Corasick walk reports every occurrence but steps through the text
//! a byte at a time (its state must see every byte). A leftmost search skips ahead with
//! the prefilter to the smallest start of any occurrence; every needle starting there is
//! then compared in place, and the search goes on one byte further. Same occurrences,
//! and on a tree of 100,000 server folders, where most texts hold a needle or two, the
//! walk was a twentieth of a scan's instructions.

use aho_corasick::{AhoCorasick, AhoCorasickKind, Input, MatchKind};

/// A set of literal needles, searched case-sensitively or ignoring ASCII case.
pub struct Needles {
    leftmost: AhoCorasick,
    /// The needles as given (ASCII-lowercased when case is ignored).
    patterns: Vec<Box<[u8]>>,
    /// For each first byte (lowercased when case is ignored), the needles starting with
    /// it, in needle order.
    by_first: Vec<Vec<usize>>,
    ignore_case: bool,
}

impl Needles {
    /// Builds the set; needle `i` is reported as `i`. Empty needles are never found.
    pub fn new<S: AsRef<[u8]>>(needles: &[S], ignore_case: bool) -> Needles {
        let patterns: Vec<Box<[u8]>> = needles
            .iter()
            .map(|n| {
                let n = n.as_ref();
                if ignore_case {
                    n.to_ascii_lowercase().into_boxed_slice()
                } else {
                    n.into()
                }
            })
            .collect();
        let mut by_first = vec![Vec::new(); 256];
        for (i, p) in patterns.iter().enumerate() {
            if let Some(&b) = p.first() {
                by_first[usize::from(b)].push(i);
            }
        }
        let leftmost = AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .match_kind(MatchKind::LeftmostFirst)
            .ascii_case_insensitive(ignore_case)
            .build(patterns.iter().filter(|p| !p.is_empty()))
            .expect("literal needles");
        Needles {
            leftmost,
            patterns,
            by_first,
            ignore_case,
        }
    }

    /// Whether any needle occurs in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.leftmost.is_match(text)
    }

    /// Calls `f(needle, start, end)` for every occurrence of every needle, by start, then
    /// by needle.
    pub fn for_each(&self, text: &str, mut f: impl FnMut(usize, usize, usize)) {
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let Some(m) = self.leftmost.find(Input::new(bytes).range(at..bytes.len())) else {
                return;
            };
            let start = m.start();
            let rest = &bytes[start..];
            let first = if self.ignore_case {
                rest[0].to_ascii_lowercase()
            } else {
                rest[0]
            };
            for &i in &self.by_first[usize::from(first)] {
                let p = &self.patterns[i];
                let here = rest.get(..p.len()).is_some_and(|r| {
                    if self.ignore_case {
                        r.eq_ignore_ascii_case(p)
                    } else {
                        r == &p[..]
                    }
                });
                if here {
                    f(i, start, start + p.len());
                }
            }
            at = start + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The occurrences an overlapping walk reports, sorted as `for_each` gives them.
    fn walked(needles: &[&str], text: &str, ignore_case: bool) -> Vec<(usize, usize, usize)> {
        let ac = AhoCorasick::builder()
            .ascii_case_insensitive(ignore_case)
            .build(needles.iter().filter(|n| !n.is_empty()))
            .unwrap();
        // The automaton numbers the non-empty needles only.
        let index: Vec<usize> = (0..needles.len())
            .filter(|&i| !needles[i].is_empty())
            .collect();
        let mut v: Vec<(usize, usize, usize)> = ac
            .find_overlapping_iter(text)
            .map(|m| (index[m.pattern().as_usize()], m.start(), m.end()))
            .collect();
        v.sort_by_key(|&(i, s, _)| (s, i));
        v
    }

    fn found(needles: &[&str], text: &str, ignore_case: bool) -> Vec<(usize, usize, usize)> {
        let mut v = Vec::new();
        Needles::new(needles, ignore_case).for_each(text, |i, s, e| v.push((i, s, e)));
        v
    }

    #[test]
    fn finds_overlapping_and_nested_needles() {
        let needles = ["sk-ant-", "sk-", "ant", "abcd", "bc", "", "c"];
        for text in [
            "sk-ant-x",
            "abce",
            "abcd",
            "xxabcdsk-sk-ant-",
            "",
            "SK-ANT-",
            "é sk-é",
        ] {
            for ic in [false, true] {
                assert_eq!(
                    found(&needles, text, ic),
                    walked(&needles, text, ic),
                    "{text}"
                );
            }
        }
        assert_eq!(
            found(&["sk-ant-", "sk-"], "a sk-ant-b", false),
            vec![(0, 2, 9), (1, 2, 5)]
        );
    }

    proptest! {
        #[test]
        fn every_occurrence_an_overlapping_walk_finds(
            needles in proptest::collection::vec("[abAB-]{1,4}", 1..8),
            text in "[abcAB -]{0,40}",
            ignore_case: bool,
        ) {
            let needles: Vec<&str> = needles.iter().map(String::as_str).collect();
            prop_assert_eq!(found(&needles, &text, ignore_case), walked(&needles, &text, ignore_case));
        }
    }
}
