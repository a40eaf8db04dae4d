"""Which pinned registry packages each mined set is built from.

Every language has two splits by package, `train` (for learning a ranker) and `test` (for
measuring it): no package, and no project, is in both, and none is a project of the eight
hand-written sets (Flask & co., Symfony, tRPC/TanStack Query, cobra/chi/gin/Prometheus/goldmark,
clap/serde_json/http/url/semver, Rack/Sinatra/Mustermann/Thor, BeanShell/OpenJFX,
Newtonsoft.Json/NUnit), nor of the bug-report set's PyPI projects or Laravel.
"""

from __future__ import annotations

from dataclasses import dataclass

SPLITS = ("train", "test")
_MONO = "6.8.0.105+dfsg-3.3"  # Mono's source: a 117 MB download, unpacked once


@dataclass(frozen=True)
class Package:
    """One pinned package and the folder of its sources that goes into the corpus."""

    folder: str  # the package's folder in the corpus
    registry: str  # pypi | pypi-sdist | npm | debian | debian-source
    spec: str  # what the registry's client is asked for, with its version
    # globs (in the unpacked archive) of the source folders kept: the first that matches, where
    # "a,b" is both a and b
    roots: tuple[str, ...]
    exclude: tuple[str, ...] = ()  # globs (relative to a root) of files left out


@dataclass(frozen=True)
class MinedLanguage:
    """A language of the mined sets: its files and its packages per split."""

    key: str  # short name in set names: mined-<key>-<split>
    label: str
    suffixes: tuple[str, ...]
    cast_language: str | None  # astchunk's name for the language (the cAST baselines)
    train: tuple[Package, ...]
    test: tuple[Package, ...]

    def packages(self, split: str) -> tuple[Package, ...]:
        """The packages of one split."""
        return self.train if split == "train" else self.test


def _wheel(folder: str, spec: str, *roots: str) -> Package:
    return Package(folder, "pypi", spec, roots or (folder,))


def _npm(folder: str, spec: str, root: str = "package/src", exclude: tuple[str, ...] = ()):
    # declaration files hold no function bodies
    return Package(folder, "npm", spec, (root,), ("*.d.ts", *exclude))


def _go(folder: str, package: str, version: str, import_path: str) -> Package:
    return Package(
        folder, "debian", f"{package}={version}", (f"usr/share/gocode/src/{import_path}",)
    )


def _crate(folder: str, package: str, version: str) -> Package:
    return Package(folder, "debian", f"{package}={version}", ("usr/share/cargo/registry/*/src",))


def _php(folder: str, package: str, version: str) -> Package:
    # Debian generates autoload.php for each package: it is not the project's code
    return Package(
        folder, "debian", f"{package}={version}", ("usr/share/php",), ("**/autoload.php",)
    )


def _gem(folder: str, package: str, version: str) -> Package:
    return Package(
        folder,
        "debian",
        f"{package}={version}",
        ("usr/share/rubygems-integration/all/gems/*/lib", "usr/lib/ruby/vendor_ruby"),
    )


def _source(folder: str, package: str, version: str, *roots: str) -> Package:
    return Package(folder, "debian-source", f"{package}={version}", roots)


LANGUAGES: dict[str, MinedLanguage] = {
    "python": MinedLanguage(
        key="python",
        label="Python",
        suffixes=(".py",),
        cast_language="python",
        train=(
            _wheel("boltons", "boltons==25.0.0"),
            _wheel("toolz", "toolz==1.0.0", "toolz", "tlz"),
            _wheel("marshmallow", "marshmallow==3.26.1"),
            _wheel("cachetools", "cachetools==5.5.2"),
            _wheel("humanize", "humanize==4.12.1"),
        ),
        test=(
            _wheel("more_itertools", "more-itertools==10.6.0"),
            _wheel("arrow", "arrow==1.3.0"),
            _wheel("tomlkit", "tomlkit==0.13.2"),
            _wheel("packaging", "packaging==24.2"),
            _wheel("attrs", "attrs==25.1.0", "attr", "attrs"),
        ),
    ),
    "javascript": MinedLanguage(
        key="javascript",
        label="JavaScript",
        suffixes=(".js",),
        cast_language=None,
        train=(
            # the per-function modules: lodash.js and core.js repeat them, fp/ wraps them
            _npm(
                "lodash",
                "lodash@4.17.21",
                "package",
                ("lodash.js", "core.js", "fp/**", "*.min.js", "fp.js"),
            ),
            _npm("async", "async@3.2.6", "package/internal"),
            _npm("crypto-js", "crypto-js@4.2.0", "package"),
        ),
        test=(
            _npm("moment", "moment@2.30.1", "package/src"),
            _npm("node-forge", "node-forge@1.3.1", "package/lib"),
            _npm("commander", "commander@12.1.0", "package/lib"),
            _npm("axios", "axios@1.7.7", "package/lib"),
        ),
    ),
    "typescript": MinedLanguage(
        key="typescript",
        label="TypeScript",
        suffixes=(".ts",),
        cast_language="typescript",
        train=(
            _npm("fabric", "fabric@6.4.3"),
            _npm("mobx", "mobx@6.13.5"),
            _npm("immer", "immer@10.1.1"),
            _npm("signalr", "@microsoft/signalr@8.0.7"),
        ),
        test=(
            _npm("rxjs", "rxjs@7.8.1", "package/src/internal"),
            _npm("prosemirror-model", "prosemirror-model@1.23.0"),
            _npm("prosemirror-transform", "prosemirror-transform@1.10.2"),
            _npm("prosemirror-state", "prosemirror-state@1.4.3"),
            _npm("prosemirror-view", "prosemirror-view@1.34.3"),
            _npm("redux-toolkit", "@reduxjs/toolkit@2.3.0"),
            _npm("web-vitals", "web-vitals@4.2.4"),
        ),
    ),
    "go": MinedLanguage(
        key="go",
        label="Go",
        suffixes=(".go",),
        cast_language=None,
        train=(
            _go(
                "logrus",
                "golang-github-sirupsen-logrus-dev",
                "1.9.0-1",
                "github.com/sirupsen/logrus",
            ),
            _go("mux", "golang-github-gorilla-mux-dev", "1.8.0-1", "github.com/gorilla/mux"),
            _go("cli", "golang-github-urfave-cli-dev", "1.22.9-2", "github.com/urfave/cli"),
            _go(
                "pflag",
                "golang-github-spf13-pflag-dev",
                "1.0.6~git20210604-d5e0c0615ace-1",
                "github.com/spf13/pflag",
            ),
            _go(
                "toml", "golang-github-burntsushi-toml-dev", "1.2.0-2", "github.com/BurntSushi/toml"
            ),
            _go("afero", "golang-github-spf13-afero-dev", "1.9.3-1", "github.com/spf13/afero"),
            _go(
                "mapstructure",
                "golang-github-mitchellh-mapstructure-dev",
                "1.5.0-2",
                "github.com/mitchellh/mapstructure",
            ),
        ),
        test=(
            _go("dns", "golang-github-miekg-dns-dev", "1.1.50-2", "github.com/miekg/dns"),
            _go("yaml", "golang-gopkg-yaml.v3-dev", "3.0.1-3", "gopkg.in/yaml.v3"),
            _go("go-cmp", "golang-github-google-go-cmp-dev", "0.5.9-1", "github.com/google/go-cmp"),
            _go(
                "websocket",
                "golang-github-gorilla-websocket-dev",
                "1.5.0-2",
                "github.com/gorilla/websocket",
            ),
            _go("hcl", "golang-github-hashicorp-hcl-dev", "1.0.0-1.1", "github.com/hashicorp/hcl"),
            _go("gjson", "golang-github-tidwall-gjson-dev", "1.14.4-2", "github.com/tidwall/gjson"),
        ),
    ),
    "rust": MinedLanguage(
        key="rust",
        label="Rust",
        suffixes=(".rs",),
        cast_language=None,
        train=(
            _crate("itertools", "librust-itertools-dev", "0.10.3-1"),
            _crate("bytes", "librust-bytes-dev", "1.2.1-1"),
            _crate("indexmap", "librust-indexmap-dev", "1.9.2-1"),
            _crate("smallvec", "librust-smallvec-dev", "1.9.0-1"),
            _crate("nom", "librust-nom-dev", "7.1.1-1"),
            _crate("rand", "librust-rand-dev", "0.8.5-1"),
            _crate("log", "librust-log-dev", "0.4.17-3"),
        ),
        test=(
            _crate("regex-syntax", "librust-regex-syntax-dev", "0.6.27-1"),
            _crate("chrono", "librust-chrono-dev", "0.4.23-2"),
            _crate("memchr", "librust-memchr-dev", "2.5.0-1"),
            _crate("toml", "librust-toml-dev", "0.5.11-1"),
            _crate("base64", "librust-base64-dev", "0.13.0-1"),
        ),
    ),
    "php": MinedLanguage(
        key="php",
        label="PHP",
        suffixes=(".php",),
        cast_language=None,
        train=(
            _php("commonmark", "php-league-commonmark", "2.3.9-1+deb12u1"),
            _php("monolog", "php-monolog", "2.9.1-1"),
            _php("psr7", "php-guzzlehttp-psr7", "2.4.5-1+deb12u1"),
            _php("collections", "php-doctrine-collections", "2.1.2-1"),
            _php("inflector", "php-doctrine-inflector", "2.0.6-1"),
            _php("brick-math", "php-brick-math", "0.10.0-1"),
            _php("uuid", "php-ramsey-uuid", "4.6.0-1"),
        ),
        test=(
            _php("twig", "php-twig", "3.5.1-1+deb12u3"),
            _php("vobject", "php-sabre-vobject", "2.1.7-6.1"),
            _php("nette-utils", "php-nette-utils", "4.0.0-1"),
            _php("semver", "php-composer-semver", "3.3.2-1"),
            _php("guzzle", "php-guzzlehttp-guzzle", "7.4.5-1"),
            _php("html5", "php-masterminds-html5", "2.7.6+dfsg-1"),
        ),
    ),
    "ruby": MinedLanguage(
        key="ruby",
        label="Ruby",
        suffixes=(".rb",),
        cast_language=None,
        train=(
            _gem("i18n", "ruby-i18n", "1.10.0-2"),
            _gem("addressable", "ruby-addressable", "2.8.1-1"),
            _gem("tzinfo", "ruby-tzinfo", "2.0.5-1"),
            _gem("hashie", "ruby-hashie", "5.0.0-2"),
            _gem("liquid", "ruby-liquid", "5.4.0-3"),
            _gem("rake", "rake", "13.0.6-3"),
        ),
        test=(
            _gem("activesupport", "ruby-activesupport", "2:6.1.7.10+dfsg-1~deb12u4"),
            _gem("kramdown", "ruby-kramdown", "2.4.0-2"),
            _gem("net-ssh", "ruby-net-ssh", "1:7.0.1-1"),
            _gem("rubyzip", "ruby-zip", "2.3.2-1"),
            _gem("mustache", "ruby-mustache", "1.1.1-2"),
        ),
    ),
    "java": MinedLanguage(
        key="java",
        label="Java",
        suffixes=(".java",),
        cast_language="java",
        # Apache Commons components train, other projects test (commons-lang3, commons-text,
        # Gson, SnakeYAML... are too large or not served by the mirror: 404)
        train=(
            _source("commons-io", "commons-io", "2.11.0-2", "*/src/main/java"),
            _source("commons-codec", "libcommons-codec-java", "1.15-1", "*/src/main/java"),
            _source("commons-csv", "libcommons-csv-java", "1.9.0-1", "*/src/main/java"),
        ),
        test=(
            _source("jsoup", "jsoup", "1.15.3-1", "*/src/main/java"),
            _source("jackson-core", "jackson-core", "2.14.1-2~deb12u1", "*/src/main/java"),
        ),
    ),
    # Debian's mirror here serves few C# .orig tarballs (taglib-sharp, cecil, mono-addins, nini,
    # xsp... answer 404); Mono's carries several independent libraries under mcs/class/.
    # (KeePass 2.47's KeePassLib documents mostly properties: 4,100 chunks for 100 questions)
    "csharp": MinedLanguage(
        key="csharp",
        label="C#",
        suffixes=(".cs",),
        cast_language="csharp",
        train=(
            _source("ldap", "mono", _MONO, "*/mcs/class/Novell.Directory.Ldap"),
            _source(
                "sharpziplib", "mono", _MONO, "*/mcs/class/ICSharpCode.SharpZipLib/ICSharpCode.*"
            ),
        ),
        test=(
            Package("pythonnet", "pypi-sdist", "pythonnet==3.0.5", ("*/src/runtime",)),
            _source("rabbitmq", "mono", _MONO, "*/mcs/class/RabbitMQ.Client/src"),
        ),
    ),
}
