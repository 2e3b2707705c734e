//! Runs in groups, as `plot --group REGEX` and the viewer group them: the runs whose names
//! the expression matches form groups by their key (the expression's first capture group,
//! else the whole match: [`crate::pattern::Pattern::key`]); the runs it does not match are
//! drawn alone. A group is drawn as its mean line with a band of one standard deviation
//! (population: divided by n) each side, per step, over the group's runs that have a finite
//! value at that step: [`band`]. The numbers are here; each face draws them.

use std::collections::{BTreeMap, HashMap};

/// A legend entry: a group of runs (`key` its group's key) or one run alone (`key` None);
/// `members` the indices of its runs, in their order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'k> {
    pub key: Option<&'k [u8]>,
    pub members: Vec<usize>,
}

/// The entries of the legend in the order shown, from each run's group key (None: the
/// expression does not match its name): each group at its first run's place, each run
/// without a key alone. Linear in the keys.
#[must_use]
pub fn entries_of<'k>(keys: &[Option<&'k [u8]>]) -> Vec<Entry<'k>> {
    let mut entries: Vec<Entry<'k>> = Vec::new();
    let mut by_key: HashMap<&'k [u8], usize> = HashMap::new();
    for (index, key) in keys.iter().enumerate() {
        match key {
            None => entries.push(Entry {
                key: None,
                members: vec![index],
            }),
            Some(key) => {
                let at = *by_key.entry(key).or_insert_with(|| {
                    entries.push(Entry {
                        key: Some(key),
                        members: Vec::new(),
                    });
                    entries.len() - 1
                });
                entries[at].members.push(index);
            }
        }
    }
    entries
}

/// A group's band of one metric: per step (ascending), the mean and the standard deviation
/// of its runs' values there and how many runs had one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Band {
    pub steps: Vec<u64>,
    pub mean: Vec<f64>,
    pub std: Vec<f64>,
    pub count: Vec<u32>,
}

/// The band of a group's runs, each given as its points (steps and values, in the file's
/// order; a null as NaN). A run counts at a step with its last value there (a run that
/// logged a step twice, resumed), and only when that value is finite. The mean and the
/// population standard deviation (divided by n, two passes) sum the runs' values in the
/// runs' order. `n log n` in the points. Points beyond the shorter of a run's two slices
/// are not read.
#[must_use]
pub fn band(members: &[(&[u64], &[f64])]) -> Band {
    // Each step's runs' values, in the runs' order.
    let mut by_step: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for (steps, values) in members {
        let mut last: HashMap<u64, f64> = HashMap::with_capacity(steps.len().min(values.len()));
        let mut order: Vec<u64> = Vec::new();
        for (&step, &value) in steps.iter().zip(values.iter()) {
            if last.insert(step, value).is_none() {
                order.push(step);
            }
        }
        for step in order {
            let value = last[&step];
            if value.is_finite() {
                by_step.entry(step).or_default().push(value);
            }
        }
    }
    let mut made = Band::default();
    for (step, values) in by_step {
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let squares: f64 = values
            .iter()
            .map(|value| (value - mean) * (value - mean))
            .sum();
        made.steps.push(step);
        made.mean.push(mean);
        made.std.push((squares / n).sqrt());
        made.count
            .push(u32::try_from(values.len()).unwrap_or(u32::MAX));
    }
    made
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_stand_at_their_first_run_and_the_unmatched_alone() {
        let keys: [Option<&[u8]>; 5] = [Some(b"1"), None, Some(b"2"), Some(b"1"), Some(b"")];
        let entries = entries_of(&keys);
        assert_eq!(
            entries,
            [
                Entry {
                    key: Some(b"1"),
                    members: vec![0, 3]
                },
                Entry {
                    key: None,
                    members: vec![1]
                },
                Entry {
                    key: Some(b"2"),
                    members: vec![2]
                },
                Entry {
                    key: Some(b""),
                    members: vec![4]
                },
            ]
        );
        assert!(entries_of(&[]).is_empty());
        let none: [Option<&[u8]>; 2] = [None, None];
        assert_eq!(entries_of(&none).len(), 2);
    }

    #[test]
    fn a_band_is_the_mean_and_population_deviation_per_step() {
        // Step 0: 1 and 3 (mean 2, deviation 1); step 10: 5 alone (the other run's last
        // value there is NaN, a null); step 20: the first run's last value, 4, and 6.
        let first: (&[u64], &[f64]) = (&[0, 10, 20, 20], &[1.0, 5.0, 9.0, 4.0]);
        let second: (&[u64], &[f64]) = (&[20, 0, 10, 10], &[6.0, 3.0, 7.0, f64::NAN]);
        let made = band(&[first, second]);
        assert_eq!(made.steps, [0, 10, 20]);
        assert_eq!(made.mean, [2.0, 5.0, 5.0]);
        assert_eq!(made.std, [1.0, 0.0, 1.0]);
        assert_eq!(made.count, [2, 1, 2]);
    }

    #[test]
    fn values_that_are_not_finite_count_nowhere() {
        let only: (&[u64], &[f64]) = (&[1, 2, 3], &[f64::INFINITY, f64::NEG_INFINITY, f64::NAN]);
        assert_eq!(band(&[only]), Band::default());
        assert_eq!(band(&[]), Band::default());
        let huge: (&[u64], &[f64]) = (&[u64::MAX], &[f64::MAX]);
        let made = band(&[huge, huge]);
        assert_eq!(made.steps, [u64::MAX]);
        assert_eq!(made.count, [2]);
        let cut: (&[u64], &[f64]) = (&[1, 2], &[1.0]);
        assert_eq!(band(&[cut]).steps, [1]);
    }
}
