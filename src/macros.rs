//! The crate's two small macros, one home each: [`require!`](crate::macros::require)
//! (return an error unless a condition holds) and
//! [`named!`](crate::macros::named) (the names of an enum's variants, parsed
//! and printed from one list). Not a thesis concept; modules `use` them by
//! path (`use crate::macros::named;`).

/// Returns `Err($variant(format!(...)))` unless the condition holds:
/// `require!(n > 0, RunError::BadArgument, "--count {n}: ...")`. The
/// variant is written out with its error type, so a reader sees which
/// error it is.
macro_rules! require {
    ($cond:expr, $variant:path, $($msg:tt)*) => {
        if !$cond {
            return Err($variant(format!($($msg)*)));
        }
    };
}

/// `FromStr` and `name` of an enum named on the command line and in rows,
/// from one list of (variant, name): `named!(Walk: SimError, "split-point
/// walk", "tree or level", { Tree => "tree", Level => "level" })`.
///
/// **Any case is accepted** (`--scheme A`, `--policy DTS`, `--lock TAS`):
/// the names are lower case and the input is compared in lower case.
/// `name` gives the lower-case name, which is what rows hold. An unknown
/// name is refused with `unknown <what> `<name as given>` (expected
/// <expected>)`, built by the error type's `unknown_name(what, name,
/// expected)`.
macro_rules! named {
    ($t:ident: $err:ty, $what:literal, $expected:literal, { $($v:ident => $n:literal),+ $(,)? }) => {
        impl std::str::FromStr for $t {
            type Err = $err;
            fn from_str(s: &str) -> std::result::Result<$t, $err> {
                match s.to_ascii_lowercase().as_str() {
                    $($n => Ok($t::$v),)+
                    _ => Err(<$err>::unknown_name($what, s, $expected)),
                }
            }
        }

        impl $t {
            /// The name in rows and on the command line.
            pub fn name(self) -> &'static str {
                match self {
                    $($t::$v => $n,)+
                }
            }
        }
    };
}

pub(crate) use named;
pub(crate) use require;

#[cfg(test)]
mod tests {
    #[derive(Debug, PartialEq)]
    enum Error {
        Bad(String),
    }

    impl Error {
        fn unknown_name(what: &'static str, name: &str, expected: &'static str) -> Error {
            Error::Bad(format!("{what} {name} {expected}"))
        }
    }

    fn positive(n: i32) -> Result<i32, Error> {
        require!(n > 0, Error::Bad, "n = {n} is not positive");
        Ok(n)
    }

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Colour {
        Red,
        DarkBlue,
    }

    named!(Colour: Error, "colour", "red or darkblue", { Red => "red", DarkBlue => "darkblue" });

    #[test]
    fn require_returns_the_variant_with_the_message() {
        assert_eq!(positive(3), Ok(3));
        assert_eq!(positive(-2), Err(Error::Bad("n = -2 is not positive".into())));
    }

    #[test]
    fn named_parses_any_case_and_names_in_lower_case() {
        assert_eq!("DarkBlue".parse::<Colour>(), Ok(Colour::DarkBlue));
        assert_eq!("RED".parse::<Colour>(), Ok(Colour::Red));
        assert_eq!(Colour::DarkBlue.name(), "darkblue");
        assert_eq!("Green".parse::<Colour>(), Err(Error::Bad("colour Green red or darkblue".into())));
    }
}
