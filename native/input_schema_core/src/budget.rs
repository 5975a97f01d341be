//! A work budget shared by the compiler and the validator.

use std::cell::Cell;

/// Work a compilation or a validation may do before it gives up, in units
/// of roughly 50-100 ns (strings are charged generously: 16 bytes scan in
/// far less). Validation charges one per value visited, map entry
/// read, list cell counted or enum choice compared, and one per 16 bytes of
/// string scanned; compilation charges ten per schema keyword and one per
/// enum choice. It lets a caller run small calls inline on a BEAM scheduler
/// and hand the rest to a dirty one.
#[derive(Debug)]
pub struct Budget {
    left: Cell<u64>,
}

impl Budget {
    pub fn new(units: u64) -> Budget {
        Budget {
            left: Cell::new(units),
        }
    }

    pub fn unlimited() -> Budget {
        Budget::new(u64::MAX)
    }

    /// Units left, saturated to `usize`.
    pub fn left(&self) -> usize {
        usize::try_from(self.left.get()).unwrap_or(usize::MAX)
    }

    pub fn charge(&self, units: u64) -> Result<(), OverBudget> {
        let left = self.left.get();
        if units > left {
            self.left.set(0);
            Err(OverBudget)
        } else {
            self.left.set(left - units);
            Ok(())
        }
    }
}

/// The walk needed more than its budget; nothing was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget;
