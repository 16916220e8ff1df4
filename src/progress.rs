//! The scan's progress bar: on stderr, only on a terminal, and only once a scan has
//! taken more than a second (a fast scan should not flash a bar).

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcplogs::scan::Progress;

const SHOW_AFTER: Duration = Duration::from_secs(1);

pub struct ScanProgress {
    start: Instant,
    /// `None` when stderr is not a terminal: never drawn.
    bar: Option<Mutex<Option<ProgressBar>>>,
}

impl ScanProgress {
    pub fn new() -> Self {
        ScanProgress {
            start: Instant::now(),
            bar: std::io::stderr().is_terminal().then(|| Mutex::new(None)),
        }
    }

    pub fn update(&self, p: Progress) {
        let Some(slot) = &self.bar else { return };
        if self.start.elapsed() < SHOW_AFTER {
            return;
        }
        let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
        let bar = slot.get_or_insert_with(|| {
            let bar =
                ProgressBar::with_draw_target(Some(p.bytes_total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {binary_bytes}/{binary_total_bytes} {msg} ({binary_bytes_per_sec})",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        bar.set_position(p.bytes_done);
        bar.set_message(format!("{}/{} files", p.files_done, p.files_total));
    }

    pub fn finish(&self) {
        if let Some(slot) = &self.bar
            && let Some(bar) = slot.lock().unwrap_or_else(|e| e.into_inner()).take()
        {
            bar.finish_and_clear();
        }
    }
}
