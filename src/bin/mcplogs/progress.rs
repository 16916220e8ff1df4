//! The scan's progress display: on stderr, only when stderr is a terminal, and only once
//! a scan has taken more than a second (a fast scan should not flash anything). It starts
//! as a spinner (while the logs are found and measured), becomes a bar once the total
//! is known, and moves with every block read, so one 2 GB file does not freeze it.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcplogs::scan::Progress;

const SHOW_AFTER: Duration = Duration::from_secs(1);

pub struct ScanProgress {
    /// `None` when stderr is not a terminal: never drawn.
    bar: Option<Arc<Mutex<State>>>,
}

struct State {
    bar: ProgressBar,
    is_bar: bool,
    done: bool,
}

impl ScanProgress {
    pub fn new() -> Self {
        if !std::io::stderr().is_terminal() {
            return ScanProgress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message("looking for MCP logs…");
        let state = Arc::new(Mutex::new(State {
            bar,
            is_bar: false,
            done: false,
        }));
        let later = Arc::clone(&state);
        std::thread::spawn(move || {
            std::thread::sleep(SHOW_AFTER);
            let s = later.lock().unwrap_or_else(|e| e.into_inner());
            if !s.done {
                s.bar.set_draw_target(ProgressDrawTarget::stderr());
                s.bar.enable_steady_tick(Duration::from_millis(120));
            }
        });
        ScanProgress { bar: Some(state) }
    }

    /// Whether the display can ever be drawn (stderr is a terminal).
    pub fn shown(&self) -> bool {
        self.bar.is_some()
    }

    pub fn update(&self, p: Progress) {
        let Some(state) = &self.bar else { return };
        let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
        if s.done {
            return;
        }
        if !s.is_bar {
            s.is_bar = true;
            s.bar.set_length(p.bytes_total);
            s.bar.reset_elapsed();
            s.bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {binary_bytes}/{binary_total_bytes} {msg} ({binary_bytes_per_sec}, {eta} left)",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
        }
        s.bar.set_position(p.bytes_done.min(p.bytes_total));
        s.bar
            .set_message(format!("{}/{} files", p.files_done, p.files_total));
    }

    pub fn finish(&self) {
        if let Some(state) = &self.bar {
            let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
            s.done = true;
            s.bar.finish_and_clear();
        }
    }
}
