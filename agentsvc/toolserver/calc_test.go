package toolserver

import (
	"math"
	"strings"
	"testing"
)

func TestEvaluate(t *testing.T) {
	tests := []struct {
		expr string
		want float64
	}{
		{"(17 * 23) + 4", 395},
		{"1 + 2 * 3", 7},
		{"(1 + 2) * 3", 9},
		{"10 - 4 - 3", 3},
		{"100 / 10 / 5", 2},
		{"7 % 3", 1},
		{"-7 % 3", -1},
		{"5.5 % 2", 1.5},
		{"2 ^ 10", 1024},
		{"2 ^ 3 ^ 2", 512},
		{"-2 ^ 2", -4},
		{"(-2) ^ 2", 4},
		{"2 ^ -1", 0.5},
		{"--3", 3},
		{"+4", 4},
		{"-(3 + 4) * 2", -14},
		{"3 * -2", -6},
		{".5 + 1.", 1.5},
		{"1e3 + 2.5E-1", 1000.25},
		{"  42  ", 42},
		{"((((1))))", 1},
		{"1 / 4", 0.25},
		{"0.1 + 0.2", 0.30000000000000004},
		{"\t8\n/\r2", 4},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, err := evaluate(tt.expr)
			if err != nil {
				t.Fatalf("evaluate(%q): %v", tt.expr, err)
			}
			if got != tt.want {
				t.Errorf("evaluate(%q) = %v, want %v", tt.expr, got, tt.want)
			}
		})
	}
}

func TestEvaluateErrors(t *testing.T) {
	tests := []struct {
		expr string
		want string // part of the message
	}{
		{"", "empty"},
		{"   ", "empty"},
		{"1 / 0", "division by zero"},
		{"1 / (2 - 2)", "division by zero"},
		{"5 % 0", "modulo by zero"},
		{"2 +", "expression ends"},
		{"(1 + 2", "never closed"},
		{"1 + 2)", `unexpected ')'`},
		{"2 3", `unexpected '3'`},
		{"import os", `unexpected 'i'`},
		{"__import__('os').system('ls')", `unexpected '_'`},
		{"sqrt(4)", `unexpected 's'`},
		{"1.2.3", `unexpected '.'`},
		{"1e", "malformed exponent"},
		{"1e+", "malformed exponent"},
		{".", "malformed number"},
		{"(-1) ^ 0.5", "not a real number"},
		{"10 ^ 400", "too large"},
		{"1e400", "out of range"},
		{"1e308 * 10", "not a finite number"},
		{"2 ** 3", `unexpected '*'`},
		{"1 = 1", `unexpected '='`},
		{strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100), "nested too deeply"},
		{strings.Repeat("-", 100) + "1", "nested too deeply"},
		{strings.Repeat("1+", 600) + "1", "too long"},
	}
	for _, tt := range tests {
		name := tt.expr
		if len(name) > 30 {
			name = name[:30]
		}
		t.Run(name, func(t *testing.T) {
			got, err := evaluate(tt.expr)
			if err == nil {
				t.Fatalf("evaluate(%q) = %v, want an error containing %q", tt.expr, got, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("evaluate(%q) error = %q, want it to contain %q", tt.expr, err, tt.want)
			}
		})
	}
}

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{395, "395"},
		{0.30000000000000004, "0.3"},
		{math.Copysign(0, -1), "0"},
		{1.5, "1.5"},
		{-14, "-14"},
		{1e21, "1e+21"},
		{1.0 / 3, "0.333333333333333"},
	}
	for _, tt := range tests {
		if got := formatNumber(tt.v); got != tt.want {
			t.Errorf("formatNumber(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func FuzzEvaluate(f *testing.F) {
	for _, s := range []string{"(17 * 23) + 4", "-2^2", "1/0", "((", "1e308*10", "5 % 0.5", "2^-1074"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		v, err := evaluate(expr)
		if err != nil {
			return
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("evaluate(%q) = %v without an error", expr, v)
		}
	})
}
