//! Python `tabulate`'s "simple" format, as VyOS's op-mode scripts print their tables: a header
//! line, a line of dashes with one run per column (the column's width), then one line per row;
//! a cell with line breaks continues on the next lines with the other cells blank.
//!
//! Columns are cut by characters (tabulate pads by characters), in one pass over the text.

/// A table read from text: its header cells and rows of cells, each cell trimmed.
#[derive(Debug, Default)]
pub(crate) struct SimpleTable {
    /// The header cells.
    pub(crate) headers: Vec<String>,
    /// The rows; a multi-line cell's lines are joined with `\n`.
    pub(crate) rows: Vec<Vec<String>>,
}

impl SimpleTable {
    /// The index of the column headed `name`.
    pub(crate) fn column(&self, name: &str) -> Option<usize> {
        self.headers.iter().position(|h| h == name)
    }
}

/// Column extents (in characters) from a line of dashes; `None` when `line` is not one.
fn dash_runs(line: &str) -> Option<Vec<(usize, usize)>> {
    let trimmed = line.trim();
    if trimmed.is_empty() || !trimmed.chars().all(|c| c == '-' || c == ' ') {
        return None;
    }
    let mut cols = Vec::new();
    let mut start = None;
    let mut width = 0;
    for (i, c) in line.chars().enumerate() {
        match (c == '-', start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                cols.push((s, i));
                start = None;
            }
            _ => {}
        }
        width = i + 1;
    }
    if let Some(s) = start {
        cols.push((s, width));
    }
    Some(cols)
}

/// The cells of `line` cut at `cols`; the last column takes the rest of the line.
fn cells(line: &str, cols: &[(usize, usize)]) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let n = cols.len();
    cols.iter()
        .enumerate()
        .map(|(k, &(a, b))| {
            let end = if k + 1 == n {
                chars.len()
            } else {
                b.min(chars.len())
            };
            let start = a.min(end);
            chars[start..end]
                .iter()
                .collect::<String>()
                .trim()
                .to_owned()
        })
        .collect()
}

/// Reads the first "simple" table of `text` that has at least `min_columns` columns; `None`
/// when there is none (the text is a message, not a table).
pub(crate) fn parse_simple_table(text: &str, min_columns: usize) -> Option<SimpleTable> {
    let mut previous: Option<&str> = None;
    let mut lines = text.lines();
    let mut found = None;
    for line in lines.by_ref() {
        if let Some(cols) = dash_runs(line)
            && cols.len() >= min_columns
            && let Some(header) = previous
        {
            found = Some((cells(header, &cols), cols));
            break;
        }
        previous = Some(line);
    }
    let (headers, cols) = found?;
    let mut rows: Vec<Vec<String>> = Vec::new();
    for line in lines {
        if line.trim().is_empty() {
            continue;
        }
        let row = cells(line, &cols);
        match rows.last_mut() {
            // A continuation line of multi-line cells: the first cell is blank.
            Some(last) if row.first().is_some_and(String::is_empty) => {
                for (cell, more) in last.iter_mut().zip(row) {
                    if !more.is_empty() {
                        if !cell.is_empty() {
                            cell.push('\n');
                        }
                        cell.push_str(&more);
                    }
                }
            }
            _ => rows.push(row),
        }
    }
    Some(SimpleTable { headers, rows })
}
