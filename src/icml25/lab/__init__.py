"""The paper-agnostic machinery: catalog, claims, reproduction protocol, runner, report, CLI."""
