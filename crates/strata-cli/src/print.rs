//! Printing for people: what documents hold (titles, headings, hit text, file names) may hold
//! control characters, and a terminal obeys them. These macros print like `println!` and
//! `eprintln!`, with every control character but tab and newline shown as a visible escape
//! (`strata_core::terminal::printable`). JSON output is printed as it is: JSON escapes them.

/// `println!`, made printable.
macro_rules! say {
    () => {
        println!()
    };
    ($($arg:tt)*) => {
        println!("{}", strata_core::terminal::printable(&format!($($arg)*)))
    };
}

/// `eprintln!`, made printable.
macro_rules! say_err {
    ($($arg:tt)*) => {
        eprintln!("{}", strata_core::terminal::printable(&format!($($arg)*)))
    };
}

/// `print!`, made printable.
macro_rules! show {
    ($($arg:tt)*) => {
        print!("{}", strata_core::terminal::printable(&format!($($arg)*)))
    };
}
