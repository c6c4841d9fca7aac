"""ADMIN SET FRONTEND CONFIG values (settings.check_frontend_setting)."""

from __future__ import annotations

import pytest

from dorisql.errors import AnalysisError
from dorisql.settings import INT_CONFIG_MAX, check_frontend_setting


def test_integer_configs_take_java_int_values():
    assert check_frontend_setting("max_dynamic_partition_num", "2000") == "2000"
    assert check_frontend_setting("max_dynamic_partition_num", str(INT_CONFIG_MAX)) == "2147483647"


@pytest.mark.parametrize(
    "name",
    [
        "max_dynamic_partition_num",
        "dynamic_partition_check_interval_seconds",
        "autobucket_max_buckets",
        "cluster_backends",
    ],
)
def test_integer_configs_beyond_java_int_are_refused(name):
    with pytest.raises(AnalysisError) as err:
        check_frontend_setting(name, "99999999999999999999")
    assert str(err.value) == (f"Invalid value '99999999999999999999' for config '{name}': must be at most 2147483647")
    with pytest.raises(AnalysisError, match="must be at most 2147483647"):
        check_frontend_setting(name, str(INT_CONFIG_MAX + 1))


def test_other_refusals_still_name_the_config():
    with pytest.raises(AnalysisError, match="expected an integer"):
        check_frontend_setting("max_dynamic_partition_num", "1e3")
    with pytest.raises(AnalysisError, match="must be positive"):
        check_frontend_setting("max_dynamic_partition_num", "0")
    with pytest.raises(AnalysisError, match="does not exist or is not mutable"):
        check_frontend_setting("no_such_config", "1")
