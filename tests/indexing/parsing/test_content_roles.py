"""What a file is for, read from what it contains, in every language (`content_roles`)."""

from __future__ import annotations

import pytest

from indexing.parsing.content_roles import (
    BENCHMARK,
    CODE,
    FIXTURE,
    GENERATED,
    TEST,
    VENDORED,
    content_role,
    is_test_function,
)
from indexing.parsing.parser import parse_file

TESTS = {
    "python": """\
import pytest
from shop.cart import Cart


def make_cart():
    return Cart()


def test_an_empty_cart_totals_zero():
    assert make_cart().total() == 0
""",
    "python-unittest": """\
import unittest


class CartTest(unittest.TestCase):
    def test_total(self):
        self.assertEqual(1, 1)
""",
    "go": """\
package cart

import "testing"

func TestTotal(t *testing.T) {
\tif Total() != 0 {
\t\tt.Fatal("not zero")
\t}
}
""",
    "java": """\
package com.acme.cart;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;

class CartTest {
    @Test
    void emptyCartTotalsZero() {
        assertEquals(0, new Cart().total());
    }
}
""",
    "kotlin": """\
package com.acme.cart

import kotlin.test.Test
import kotlin.test.assertEquals

class CartTest {
    @Test
    fun emptyCartTotalsZero() = assertEquals(0, Cart().total())
}
""",
    "javascript": """\
const { Cart } = require('../src/cart');

describe('Cart', () => {
  it('totals zero when empty', () => {
    expect(new Cart().total()).toBe(0);
  });
});
""",
    "typescript": """\
import { describe, it, expect } from 'vitest';
import { Cart } from '../src/cart';

describe('Cart', () => {
  it('totals zero', () => expect(new Cart().total()).toBe(0));
});
""",
    "ruby": """\
require 'spec_helper'

RSpec.describe Cart do
  it 'totals zero when empty' do
    expect(Cart.new.total).to eq(0)
  end
end
""",
    "ruby-minitest": """\
require 'minitest/autorun'

class CartTest < Minitest::Test
  def test_total
    assert_equal 0, Cart.new.total
  end
end
""",
    "php": """\
<?php
namespace Tests\\Cart;

use PHPUnit\\Framework\\TestCase;

final class CartTest extends TestCase
{
    public function testEmptyCartTotalsZero(): void
    {
        $this->assertSame(0, (new Cart())->total());
    }
}
""",
    "csharp": """\
using Xunit;

public class CartTests
{
    [Fact]
    public void EmptyCartTotalsZero() => Assert.Equal(0, new Cart().Total());
}
""",
    "cpp": """\
#include <gtest/gtest.h>
#include "cart.h"

TEST(CartTest, EmptyCartTotalsZero) {
  EXPECT_EQ(0, Cart().total());
}
""",
    "rust": """\
use shop::cart::Cart;

#[test]
fn empty_cart_totals_zero() {
    assert_eq!(Cart::new().total(), 0);
}

#[test]
fn one_item() {
    assert_eq!(Cart::with(1).total(), 1);
}
""",
}


@pytest.mark.parametrize("key", sorted(TESTS))
def test_a_test_suite_is_read_as_tests_from_its_framework_and_test_definitions(key):
    assert content_role(key.split("-")[0], TESTS[key]) == TEST


CODE_FILES = {
    # a library of test helpers: it imports unittest but defines no test
    "python": """\
import unittest


class SimpleTestCase(unittest.TestCase):
    def assertRedirects(self, response, url):
        self.assertEqual(response.url, url)
""",
    # a Rust module with its inline tests is code; its test functions are tests
    "rust": """\
pub fn total(items: &[u32]) -> u32 {
    items.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums() {
        assert_eq!(total(&[1, 2]), 3);
    }
}
""",
    # a function that happens to be called test
    "javascript": """\
export function test(value) {
  return /^[a-z]+$/.test(value);
}
""",
    "go": """\
package cart

func Total() int { return 0 }
""",
}


@pytest.mark.parametrize("language", sorted(CODE_FILES))
def test_code_that_only_mentions_testing_says_nothing(language):
    assert content_role(language, CODE_FILES[language]) == CODE


def test_a_rust_module_with_inline_tests_under_more_conditions_is_code():
    """clap's suggestions.rs: two functions, four tests behind `#[cfg(all(test, ...))]`; read
    as a test file, search and locate ranked the code that answers at a third."""
    module = CODE_FILES["rust"].replace("#[cfg(test)]", '#[cfg(all(test, feature = "x"))]')
    tests = "\n".join(f"    #[test]\n    fn case_{i}() {{}}\n" for i in range(4))
    module = module.replace("mod tests {\n", "mod tests {\n" + tests)
    assert content_role("rust", module) == CODE
    assert content_role("rust", module.replace("all(test,", "any(unix, test,")) == CODE
    # a file of tests only, its module compiled everywhere but in tests, is still tests
    only_tests = "#[cfg(not(test))]\nmod real {}\n" + tests
    assert content_role("rust", only_tests) == TEST


def test_rust_functions_of_an_inline_test_module_are_tests_and_the_others_are_not():
    parsed = parse_file("src/cart.rs", CODE_FILES["rust"].encode())
    roles = {s.qualified_name: is_test_function("rust", s.qualified_name) for s in parsed.symbols}
    assert roles["total"] is False
    assert roles["tests::sums"] is True
    assert is_test_function("python", "tests.sums") is False


def test_a_pytest_module_of_plain_test_functions_needs_no_import():
    text = "def test_one():\n    assert 1\n\n\ndef test_two():\n    assert 2\n"
    assert content_role("python", text) == TEST


def test_benchmarks_are_read_as_benchmarks():
    go = 'package cart\n\nimport "testing"\n\nfunc BenchmarkTotal(b *testing.B) {\n}\n'
    assert content_role("go", go) == BENCHMARK
    asv = "class TimeSuite:\n    def time_total(self):\n        pass\n"
    assert content_role("python", asv) == BENCHMARK
    assert content_role("rust", "criterion_group!(benches, bench_total);\n") == BENCHMARK


def test_generated_files_are_read_by_their_generators_markers():
    go = "// Copyright 2024\n\n// Code generated by stringer; DO NOT EDIT.\n\npackage x\n"
    assert content_role("go", go) == GENERATED
    cs = "//------\n// <auto-generated>\n//     This code was generated by a tool.\n"
    assert content_role("csharp", cs) == GENERATED
    py = "# Generated by Django 4.2 on 2024-01-01 10:00\n\nfrom django.db import migrations\n"
    assert content_role("python", py) == GENERATED
    # the words further down, in prose, are not a marker
    prose = "def f():\n    pass\n" * 40 + "# the generated by-laws are read here\n"
    assert content_role("python", prose) == CODE


def test_bundled_libraries_are_read_as_vendored_by_banner_or_by_their_long_lines():
    jquery = "/*!\n * jQuery JavaScript Library v3.5.1\n */\n(function(){})();"
    assert content_role("javascript", jquery) == VENDORED
    underscore = "//     Underscore.js 1.13.1\n//     https://underscorejs.org\n"
    assert content_role("javascript", underscore) == VENDORED
    minified = "var a=1;" + ";".join(f"function f{i}(a,b){{return a+b}}" for i in range(400))
    assert content_role("javascript", minified) == VENDORED
    own = "// app.js v1.2 of our own\nexport const add = (a, b) => a + b;\n" * 10
    assert content_role("javascript", own) == CODE


def test_the_parser_stores_the_role_it_reads():
    assert parse_file("checks/cart_checks.go", TESTS["go"].encode()).role == TEST
    assert parse_file("cart.go", CODE_FILES["go"].encode()).role == CODE


def test_a_module_of_pytest_fixtures_without_tests_is_a_fixture():
    text = "import pytest\n\n\n@pytest.fixture\ndef cart():\n    return []\n"
    assert content_role("python", text) == FIXTURE
