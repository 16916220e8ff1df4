//! What was worked out for the texts seen last: a small table, one slot per hash of a
//! text, where a text in a taken slot replaces the one there.
//!
//! Logs say the same things over and over (the same connection lines, capabilities and
//! errors in every session, the same servers in every project), so a pure function of a
//! text is often asked about a text it has just seen. A hit is a hash and a comparison
//! of the whole text: a collision costs a slot, never a wrong answer. Texts longer than
//! [`MAX_TEXT_BYTES`] (or than the table's whole budget) are never kept, and a table
//! whose texts would pass its budget ([`Size`]; [`BUDGET_BYTES`] for most) is emptied
//! first, so a table holds at most that much text.

/// Slots in a table. A scan of many server folders asks about a few thousand texts in
/// turn (each server's paths, times and messages): with 256 slots, texts seen a moment
/// ago had been pushed out, and the secret rules ran on them again.
pub const SLOTS: usize = 4096;
/// The longest text a table keeps.
pub const MAX_TEXT_BYTES: usize = 4096;
/// The most text a table keeps, in bytes.
pub const BUDGET_BYTES: usize = 1 << 20;

/// Texts seen last, each with what was worked out for it.
pub struct Recent<V> {
    slots: Vec<Option<(Box<str>, V)>>,
    /// The bytes of the texts in `slots`.
    bytes: usize,
    /// How many slots, and how many bytes of text, the table holds at most.
    size: Size,
}

/// How large a [`Recent`] table grows: its slots, and the most text it keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    pub slots: usize,
    pub budget_bytes: usize,
}

impl Size {
    /// [`SLOTS`] slots and [`BUDGET_BYTES`]: a table one piece of work keeps.
    pub const SMALL: Size = Size {
        slots: SLOTS,
        budget_bytes: BUDGET_BYTES,
    };
}

impl<V> Default for Recent<V> {
    fn default() -> Self {
        Recent::sized(Size::SMALL)
    }
}

impl<V> Recent<V> {
    /// An empty table of `size` (room is made at its first text).
    pub fn sized(size: Size) -> Self {
        Recent {
            slots: Vec::new(),
            bytes: 0,
            size: Size {
                slots: size.slots.max(1),
                ..size
            },
        }
    }

    /// The slot `text` goes in.
    fn slot(&self, text: &str) -> usize {
        (mix(text) % self.size.slots as u64) as usize
    }

    /// Whether `text` is too long to keep: longer than [`MAX_TEXT_BYTES`] or than the
    /// table's whole budget.
    fn too_long(&self, text: &str) -> bool {
        text.len() > MAX_TEXT_BYTES.min(self.size.budget_bytes)
    }

    /// What was kept for `text`, if it is in its slot.
    pub fn get(&self, text: &str) -> Option<&V> {
        if self.too_long(text) || self.slots.is_empty() {
            return None;
        }
        match &self.slots[self.slot(text)] {
            Some((t, v)) if **t == *text => Some(v),
            _ => None,
        }
    }

    /// Keeps `v` for `text` (in place of what its slot held), unless `text` is too long;
    /// first forgets every text if keeping this one would pass the table's budget.
    pub fn insert(&mut self, text: &str, v: V) {
        if self.too_long(text) {
            return;
        }
        if self.slots.is_empty() {
            self.slots.resize_with(self.size.slots, || None);
        }
        let slot = self.slot(text);
        let replaced = self.slots[slot].as_ref().map_or(0, |(t, _)| t.len());
        if self.bytes - replaced + text.len() > self.size.budget_bytes {
            self.slots.iter_mut().for_each(|s| *s = None);
            self.bytes = 0;
        } else {
            self.bytes -= replaced;
        }
        self.bytes += text.len();
        self.slots[slot] = Some((text.into(), v));
    }

    /// What was kept for `text`, else `make()`, kept for it (as [`Self::insert`]).
    pub fn get_or_insert_with(&mut self, text: &str, make: impl FnOnce() -> V) -> V
    where
        V: Clone,
    {
        if let Some(v) = self.get(text) {
            return v.clone();
        }
        let v = make();
        self.insert(text, v.clone());
        v
    }

    /// Keeps what `other` kept (each as [`Self::insert`], in slot order): a table of
    /// texts seen by parts worked on apart, gathered for the parts to come.
    pub fn absorb(&mut self, other: Recent<V>) {
        for (text, v) in other.slots.into_iter().flatten() {
            self.insert(&text, v);
        }
    }

    /// The bytes of the texts kept.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

/// The slot of a text in a table of [`Size::SMALL`].
pub fn slot_of(text: &str) -> usize {
    Recent::<()>::default().slot(text)
}

/// A fast hash of a text's bytes (not for a table an adversary fills: a collision only
/// costs a slot, as the text is compared).
fn mix(text: &str) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    const L: u64 = 0xa076_1d64_78bd_642f;
    // A folded multiply: the halves of the 128-bit product xored, so every bit of a
    // factor reaches every bit of the result. (The hash before multiplied in 64 bits,
    // whose low bits depend only on the factors' low bits, and rotated five bits a
    // step: texts that differ only in their last bytes, such as the times of one
    // second, fell in a handful of slots, and some paths of one folder hashed equal.)
    let fold = |x: u64, y: u64| {
        let p = u128::from(x) * u128::from(y);
        (p as u64) ^ ((p >> 64) as u64)
    };
    let word = |c: &[u8]| u64::from_le_bytes(c.try_into().expect("8 bytes"));
    // Two lanes of eight bytes: each step waits on a multiply, and two chains run side
    // by side (every message of a scan is hashed once).
    let len = text.len() as u64;
    let (mut a, mut b) = (len ^ K, !len ^ L);
    let mut pairs = text.as_bytes().chunks_exact(16);
    for c in &mut pairs {
        a = fold(a ^ word(&c[..8]), K);
        b = fold(b ^ word(&c[8..]), L);
    }
    // the last 0 to 15 bytes, zero-padded (the length is in the start)
    let rest = pairs.remainder();
    let mut tail = [0u8; 16];
    tail[..rest.len()].copy_from_slice(rest);
    a = fold(a ^ word(&tail[..8]), K);
    b = fold(b ^ word(&tail[8..]), L);
    fold(a ^ L, b ^ K)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_gets_only_its_own_value() {
        let mut r: Recent<usize> = Recent::default();
        let a = "a".to_string();
        assert_eq!(r.get(&a), None);
        r.insert(&a, 1);
        assert_eq!(r.get(&a), Some(&1));
        // Another text of the same slot takes it over; the first is then not known.
        let b = (0..)
            .map(|i| format!("b{i}"))
            .find(|t| slot_of(t) == slot_of(&a))
            .expect("a text of the same slot");
        assert_eq!(r.get(&b), None);
        r.insert(&b, 2);
        assert_eq!(r.get(&b), Some(&2));
        assert_eq!(r.get(&a), None);
        // A long text is never kept.
        let long = "x".repeat(MAX_TEXT_BYTES + 1);
        r.insert(&long, 3);
        assert_eq!(r.get(&long), None);
        let edge = "x".repeat(MAX_TEXT_BYTES);
        r.insert(&edge, 4);
        assert_eq!(r.get(&edge), Some(&4));
    }

    #[test]
    fn texts_that_differ_only_in_their_last_bytes_spread_over_the_slots() {
        // A thousand times of one second, and as many paths of one folder: no two hash
        // equal, and they take about as many slots as a fair hash gives them (1,000
        // texts in 4,096 slots: 887 on average, 10 either way one time in three).
        for texts in [
            (0..1000)
                .map(|ms| format!("2026-11-29T12:44:10.{ms:03}Z"))
                .collect::<Vec<_>>(),
            (0..1000)
                .map(|i| format!("/home/u/.cache/claude-cli-nodejs/-home-u-p/mcp-logs-s/{i}.jsonl"))
                .collect(),
        ] {
            let hashes: std::collections::HashSet<u64> = texts.iter().map(|t| mix(t)).collect();
            assert_eq!(hashes.len(), texts.len(), "{:?}", &texts[..2]);
            let slots: std::collections::HashSet<usize> =
                texts.iter().map(|t| slot_of(t)).collect();
            assert!(
                slots.len() > 850,
                "{} slots: {:?}",
                slots.len(),
                &texts[..2]
            );
        }
    }

    #[test]
    fn a_larger_table_keeps_texts_a_small_one_puts_in_one_slot() {
        let big = Size {
            slots: SLOTS * 16,
            budget_bytes: 64,
        };
        let a = "a".to_string();
        // A text the small table puts in a's slot, and the larger one does not.
        let b = (0..)
            .map(|i| format!("b{i}"))
            .find(|t| {
                slot_of(t) == slot_of(&a)
                    && Recent::<()>::sized(big).slot(t) != Recent::<()>::sized(big).slot(&a)
            })
            .expect("such a text");
        let mut small: Recent<usize> = Recent::default();
        let mut large: Recent<usize> = Recent::sized(big);
        for r in [&mut small, &mut large] {
            r.insert(&a, 1);
            r.insert(&b, 2);
        }
        assert_eq!(small.get(&a), None);
        assert_eq!((large.get(&a), large.get(&b)), (Some(&1), Some(&2)));
        // Its budget holds: a text that would pass it empties the table first.
        let long = "x".repeat(64 - a.len() - b.len() + 1);
        large.insert(&long, 3);
        assert_eq!((large.get(&a), large.get(&b)), (None, None));
        assert_eq!(large.get(&long), Some(&3));
        assert_eq!(large.bytes(), long.len());
        // A text longer than the whole budget is never kept, and empties nothing.
        let over = "y".repeat(65);
        large.insert(&over, 4);
        assert_eq!(large.get(&over), None);
        assert_eq!(large.get(&long), Some(&3));
        assert_eq!(large.bytes(), long.len());
    }

    #[test]
    fn a_table_absorbs_another_s_texts() {
        let mut all: Recent<usize> = Recent::default();
        all.insert("kept", 1);
        let mut part: Recent<usize> = Recent::default();
        part.insert("seen apart", 2);
        all.absorb(part);
        assert_eq!(all.get("kept"), Some(&1));
        assert_eq!(all.get("seen apart"), Some(&2));
        assert_eq!(all.bytes(), "kept".len() + "seen apart".len());
        // An empty table adds nothing.
        all.absorb(Recent::default());
        assert_eq!(all.bytes(), "kept".len() + "seen apart".len());
    }

    #[test]
    fn a_value_is_made_once_for_a_text_kept_and_each_time_for_one_too_long() {
        let mut r: Recent<usize> = Recent::default();
        let mut made = 0;
        let long = "x".repeat(MAX_TEXT_BYTES + 1);
        for _ in 0..3 {
            assert_eq!(
                r.get_or_insert_with("kept", || {
                    made += 1;
                    7
                }),
                7
            );
            assert_eq!(
                r.get_or_insert_with(&long, || {
                    made += 1;
                    8
                }),
                8
            );
        }
        assert_eq!(made, 1 + 3);
    }

    #[test]
    fn a_table_never_keeps_more_than_its_budget() {
        let mut r: Recent<usize> = Recent::default();
        let mut kept: Vec<String> = Vec::new();
        let mut taken = std::collections::HashSet::new();
        // Long texts, each in a slot of its own, until one passes the budget.
        let fit = BUDGET_BYTES / MAX_TEXT_BYTES;
        let mut i = 0;
        while kept.len() < fit {
            let t = format!("{i:0>width$}", width = MAX_TEXT_BYTES);
            i += 1;
            if taken.insert(slot_of(&t)) {
                r.insert(&t, i);
                kept.push(t);
                assert_eq!(r.bytes(), kept.len() * MAX_TEXT_BYTES);
            }
        }
        assert!(kept.iter().all(|k| r.get(k).is_some()));
        let over = (i..)
            .map(|i| format!("{i:0>width$}", width = MAX_TEXT_BYTES))
            .find(|t| !taken.contains(&slot_of(t)))
            .expect("a free slot");
        r.insert(&over, 0);
        // Everything before it is forgotten; it is kept.
        assert!(kept.iter().all(|k| r.get(k).is_none()));
        assert_eq!(r.get(&over), Some(&0));
        assert_eq!(r.bytes(), MAX_TEXT_BYTES);
        // A text in place of another counts once.
        let mut r: Recent<usize> = Recent::default();
        r.insert("a", 1);
        r.insert("a", 2);
        assert_eq!(r.bytes(), 1);
        assert_eq!(r.get("a"), Some(&2));
    }
}
