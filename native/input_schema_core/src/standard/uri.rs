//! URI references as RFC 3986 reads them: splitting into components,
//! resolving a reference against a base (section 5.2), and removing dot
//! segments. Enough for `$id`, `$ref` and `$schema`; nothing is fetched, and
//! no scheme is special.

/// A URI reference split into its five components (RFC 3986 appendix B).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriRef<'a> {
    pub scheme: Option<&'a str>,
    pub authority: Option<&'a str>,
    pub path: &'a str,
    pub query: Option<&'a str>,
    pub fragment: Option<&'a str>,
}

impl<'a> UriRef<'a> {
    /// Splits a reference. Any string splits (the appendix's expression
    /// matches everything); a scheme must start with a letter and hold only
    /// letters, digits, `+`, `-` and `.`, or the text is a relative path.
    pub fn parse(text: &'a str) -> UriRef<'a> {
        let (rest, fragment) = match text.split_once('#') {
            Some((rest, fragment)) => (rest, Some(fragment)),
            None => (text, None),
        };
        let (rest, query) = match rest.split_once('?') {
            Some((rest, query)) => (rest, Some(query)),
            None => (rest, None),
        };
        let (scheme, rest) = match rest.split_once(':') {
            Some((scheme, after)) if is_scheme(scheme) => (Some(scheme), after),
            _ => (None, rest),
        };
        let (authority, path) = match rest.strip_prefix("//") {
            Some(after) => {
                let end = after.find('/').unwrap_or(after.len());
                (after.get(..end), after.get(end..).unwrap_or(""))
            }
            None => (None, rest),
        };
        UriRef {
            scheme,
            authority,
            path,
            query,
            fragment,
        }
    }

    /// Whether the reference has a scheme (is an absolute URI, perhaps with
    /// a fragment).
    pub fn is_absolute(&self) -> bool {
        self.scheme.is_some()
    }
}

fn is_scheme(text: &str) -> bool {
    let mut bytes = text.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

/// Resolves `reference` against the absolute `base` (RFC 3986 section
/// 5.2.2) and returns the target with its fragment, if any.
pub fn resolve(base: &str, reference: &str) -> String {
    let r = UriRef::parse(reference);
    let b = UriRef::parse(base);
    let (scheme, authority, path, query);
    let merged;
    if r.scheme.is_some() {
        scheme = r.scheme;
        authority = r.authority;
        merged = remove_dot_segments(r.path);
        path = merged.as_str();
        query = r.query;
    } else {
        scheme = b.scheme;
        if r.authority.is_some() {
            authority = r.authority;
            merged = remove_dot_segments(r.path);
            path = merged.as_str();
            query = r.query;
        } else {
            authority = b.authority;
            if r.path.is_empty() {
                merged = b.path.to_string();
                path = merged.as_str();
                query = r.query.or(b.query);
            } else {
                merged = if r.path.starts_with('/') {
                    remove_dot_segments(r.path)
                } else {
                    remove_dot_segments(&merge(&b, r.path))
                };
                path = merged.as_str();
                query = r.query;
            }
        }
    }
    let mut out = String::with_capacity(base.len() + reference.len());
    if let Some(scheme) = scheme {
        out.push_str(scheme);
        out.push(':');
    }
    if let Some(authority) = authority {
        out.push_str("//");
        out.push_str(authority);
    }
    out.push_str(path);
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    if let Some(fragment) = r.fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

/// Section 5.2.3: the base's path up to its last `/`, then the reference.
fn merge(base: &UriRef<'_>, path: &str) -> String {
    if base.authority.is_some() && base.path.is_empty() {
        return format!("/{path}");
    }
    match base.path.rfind('/') {
        Some(at) => format!("{}{path}", base.path.get(..=at).unwrap_or("")),
        None => path.to_string(),
    }
}

/// Section 5.2.4, on whole segments.
pub fn remove_dot_segments(path: &str) -> String {
    if !path.contains('.') {
        return path.to_string();
    }
    let absolute = path.starts_with('/');
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len().saturating_sub(1);
    let mut trailing_slash = false;
    for (i, segment) in segments.iter().enumerate() {
        if i == 0 && absolute {
            continue;
        }
        match *segment {
            "." => trailing_slash = i == last,
            ".." => {
                out.pop();
                trailing_slash = i == last;
            }
            other => {
                out.push(other);
                trailing_slash = false;
            }
        }
    }
    let mut result = String::with_capacity(path.len());
    if absolute {
        result.push('/');
    }
    result.push_str(&out.join("/"));
    if trailing_slash && !result.ends_with('/') {
        result.push('/');
    }
    result
}

/// Splits off the fragment: `(uri without fragment, fragment)`. An empty
/// fragment is no fragment.
pub fn split_fragment(uri: &str) -> (&str, Option<&str>) {
    match uri.split_once('#') {
        Some((rest, "")) => (rest, None),
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (uri, None),
    }
}

/// Percent-decodes a fragment (JSON Pointers in fragments are
/// percent-encoded, RFC 6901 section 6). `None` when the result is not
/// UTF-8 or an escape is malformed.
pub fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_string());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    // RFC 3986 section 5.4's examples.
    #[test]
    fn the_rfc_examples_resolve_as_the_rfc_says() {
        let base = "http://a/b/c/d;p?q";
        let cases = [
            ("g:h", "g:h"),
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("g#s", "http://a/b/c/g#s"),
            ("g?y#s", "http://a/b/c/g?y#s"),
            (";x", "http://a/b/c/;x"),
            ("g;x", "http://a/b/c/g;x"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../", "http://a/"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("../../../../g", "http://a/g"),
            ("/./g", "http://a/g"),
            ("/../g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            (".g", "http://a/b/c/.g"),
            ("g..", "http://a/b/c/g.."),
            ("..g", "http://a/b/c/..g"),
            ("./../g", "http://a/b/g"),
            ("./g/.", "http://a/b/c/g/"),
            ("g/./h", "http://a/b/c/g/h"),
            ("g/../h", "http://a/b/c/h"),
            ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
            ("g;x=1/../y", "http://a/b/c/y"),
        ];
        for (reference, expected) in cases {
            assert_eq!(resolve(base, reference), expected, "{reference}");
        }
    }

    #[test]
    fn urns_keep_their_path_and_take_fragments() {
        assert_eq!(
            resolve("urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed", "#/$defs/bar"),
            "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed#/$defs/bar"
        );
        assert_eq!(split_fragment("urn:x#"), ("urn:x", None));
        assert_eq!(percent_decode("/a%25b").unwrap(), "/a%b");
        assert_eq!(percent_decode("%zz"), None);
    }
}
