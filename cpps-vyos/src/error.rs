//! The crate's error type.

use std::fmt;

/// Everything that can go wrong in this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A `config.boot` file or `set` commands could not be read.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A command had an empty path.
    #[error("empty configuration path")]
    EmptyPath,
    /// A `delete` or `comment` named a node (or value) that does not exist.
    #[error("no node at `{path}`")]
    NoSuchNode {
        /// The path, words joined by spaces.
        path: String,
    },
    /// A path went on below a leaf.
    #[error("`{path}` is a leaf, the path cannot go below it")]
    BelowLeaf {
        /// The path up to the leaf.
        path: String,
    },
    /// A value was given for a node that is not a leaf.
    #[error("`{path}` is not a leaf, it takes no value")]
    NotALeaf {
        /// The path.
        path: String,
    },
    /// A value in the configuration does not have the type a typed view expects.
    #[error("`{path}` is `{value}`, expected {expected}")]
    InvalidValue {
        /// The path of the leaf.
        path: String,
        /// The value found (views never read secrets as numbers, so this is never a secret).
        value: String,
        /// The expected type.
        expected: &'static str,
    },
    /// A comment was put on a tag node itself (VyOS keeps comments on its entries only).
    #[error("`{path}` is a tag node, comment one of its entries instead")]
    TagComment {
        /// The path.
        path: String,
    },
}

/// A syntax error, with the 1-based line and column where it was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {kind}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What was wrong.
    pub kind: ParseErrorKind,
}

/// What was wrong in a [`ParseError`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// A quoted string had no closing quote.
    UnterminatedString,
    /// A `/*` comment had no closing `*/`.
    UnterminatedComment,
    /// A token that does not fit here; the string describes what was expected.
    Unexpected {
        /// What was found.
        found: String,
        /// What was expected instead.
        expected: &'static str,
    },
    /// A `{` was not closed before the end of the input.
    MissingCloseBrace,
    /// The same node (or tag entry) appears twice in one place.
    Duplicate {
        /// The node's name.
        name: String,
    },
    /// The same name is used as a leaf and as a node with children.
    Conflict {
        /// The node's name.
        name: String,
    },
    /// Nodes nested deeper than the parser accepts.
    TooDeep,
    /// A comment that is not followed by a node.
    DanglingComment,
    /// A `set` line that does not start with `set`, `delete` or `comment`.
    UnknownCommand {
        /// The first word of the line.
        word: String,
    },
    /// A command without a path.
    EmptyPath,
    /// A `comment` command whose text is not quoted.
    MissingCommentText,
    /// A command could not be applied to the tree built so far.
    Apply(String),
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnterminatedString => f.write_str("quoted string is not closed"),
            Self::UnterminatedComment => f.write_str("comment is not closed with */"),
            Self::Unexpected { found, expected } => write!(f, "found {found}, expected {expected}"),
            Self::MissingCloseBrace => f.write_str("end of input before the closing }"),
            Self::Duplicate { name } => write!(f, "`{name}` appears twice"),
            Self::Conflict { name } => {
                write!(f, "`{name}` is both a leaf and a node with children")
            }
            Self::TooDeep => f.write_str("nodes nested too deeply"),
            Self::DanglingComment => f.write_str("comment is not followed by a node"),
            Self::UnknownCommand { word } => {
                write!(
                    f,
                    "unknown command `{word}`, expected set, delete or comment"
                )
            }
            Self::EmptyPath => f.write_str("command without a path"),
            Self::MissingCommentText => f.write_str("comment text must be quoted"),
            Self::Apply(msg) => f.write_str(msg),
        }
    }
}
