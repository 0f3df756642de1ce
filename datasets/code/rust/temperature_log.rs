//! Parses a log of temperature readings ("station,timestamp,celsius"),
//! skips malformed lines with a reason, and summarises each station.

use std::collections::BTreeMap;
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
struct Reading {
    station: String,
    timestamp: u64,
    celsius: f64,
}

#[derive(Debug)]
enum ParseError {
    WrongFieldCount(usize),
    BadTimestamp(String),
    BadTemperature(String),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::WrongFieldCount(n) => write!(f, "expected 3 fields, found {n}"),
            ParseError::BadTimestamp(s) => write!(f, "timestamp {s:?} is not an integer"),
            ParseError::BadTemperature(s) => write!(f, "temperature {s:?} is not a number"),
        }
    }
}

fn parse_line(line: &str) -> Result<Reading, ParseError> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    if fields.len() != 3 {
        return Err(ParseError::WrongFieldCount(fields.len()));
    }
    let timestamp = fields[1]
        .parse()
        .map_err(|_| ParseError::BadTimestamp(fields[1].to_string()))?;
    let celsius = fields[2]
        .parse()
        .map_err(|_| ParseError::BadTemperature(fields[2].to_string()))?;
    Ok(Reading { station: fields[0].to_string(), timestamp, celsius })
}

#[derive(Default)]
struct Summary {
    count: usize,
    min: f64,
    max: f64,
    total: f64,
}

impl Summary {
    fn add(&mut self, value: f64) {
        if self.count == 0 {
            self.min = value;
            self.max = value;
        } else {
            self.min = self.min.min(value);
            self.max = self.max.max(value);
        }
        self.count += 1;
        self.total += value;
    }

    fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.total / self.count as f64)
    }
}

fn main() {
    let log = "north,1700000000,4.5\nnorth,1700003600,5.25\nsouth,1700000000,12.0\n\
               south,17000x3600,11.5\nharbour,1700000000\nsouth,1700007200,13.75\n";
    let mut stations: BTreeMap<String, Summary> = BTreeMap::new();
    for (number, line) in log.lines().enumerate() {
        match parse_line(line) {
            Ok(reading) => stations.entry(reading.station).or_default().add(reading.celsius),
            Err(err) => eprintln!("line {}: skipped: {err}", number + 1),
        }
    }
    for (name, summary) in &stations {
        let mean = summary.mean().unwrap_or(f64::NAN);
        println!(
            "{name:<8} n={} min={:.2} max={:.2} mean={mean:.2}",
            summary.count, summary.min, summary.max
        );
    }
}
