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

    /// [`Budget::charge`] of one unit: a value visited.
    #[inline]
    pub fn charge_one(&self) -> Result<(), OverBudget> {
        let left = self.left.get();
        if left == 0 {
            return Err(OverBudget);
        }
        self.left.set(left - 1);
        Ok(())
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_charge_within_the_budget_is_taken_and_one_past_it_empties_it() {
        let budget = Budget::new(10);
        assert_eq!(budget.charge(4), Ok(()));
        assert_eq!(budget.left(), 6);
        assert_eq!(budget.charge(6), Ok(()));
        assert_eq!(budget.left(), 0);
        assert_eq!(budget.charge(0), Ok(()));
        assert_eq!(budget.charge(1), Err(OverBudget));
        assert_eq!(budget.left(), 0);

        let budget = Budget::new(5);
        assert_eq!(budget.charge(6), Err(OverBudget));
        // Over budget once is over for good: nothing is left.
        assert_eq!(budget.left(), 0);
        assert_eq!(budget.charge(1), Err(OverBudget));
    }

    #[test]
    fn one_unit_is_taken_as_charge_takes_it() {
        let budget = Budget::new(2);
        assert_eq!(budget.charge_one(), Ok(()));
        assert_eq!(budget.left(), 1);
        assert_eq!(budget.charge_one(), Ok(()));
        assert_eq!(budget.left(), 0);
        assert_eq!(budget.charge_one(), Err(OverBudget));
        assert_eq!(budget.left(), 0);
    }

    #[test]
    fn an_unlimited_budget_does_not_run_out() {
        let budget = Budget::unlimited();
        for _ in 0..1000 {
            assert_eq!(budget.charge(u64::MAX / 2000), Ok(()));
        }
        assert!(budget.left() > 0);
    }
}
