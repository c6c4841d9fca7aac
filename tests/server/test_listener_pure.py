"""The MySQL listener's own plumbing, without Spark or a catalog: the asyncio server it runs
itself (mysql-mimic's MysqlServer is not used), the handshake, and the framing's limits."""

from __future__ import annotations

from dorisql.server.context import SchedulerPools
from dorisql.server.mysql import MySQLListener

from .rawclient import RawClient, error_code


def test_the_listener_greets_refuses_an_oversized_handshake_and_stops():
    listener = MySQLListener(None, "127.0.0.1", 0)  # no context: nothing here reaches the engine
    listener.start()
    try:
        assert listener.port == listener.bound_port > 0
        with RawClient(listener.port, timeout=10) as client:
            greeting = client.read_packet()
            assert greeting[0] == 10 and b"5.7.99" in greeting  # protocol version 10, Doris's version
            client.send_raw((1 << 20).to_bytes(3, "little") + b"\x01")  # a 1 MiB "handshake"
            answer = client.read_packet()
            assert error_code(answer) == 1153 and b"max_allowed_packet" in answer
            client.read_until_closed()  # then the server ends the connection
        assert not listener.tasks  # the connection's task has ended
    finally:
        listener.stop()


def test_each_connection_has_its_own_scheduler_pool_and_names_are_reused():
    """Spark keeps every FAIR pool it has seen, so the server reuses the names of closed
    connections' pools: as many pools as connections were ever open at once."""
    pools = SchedulerPools()
    first, second, third = pools.take(), pools.take(), pools.take()
    assert len({first, second, third}) == 3
    pools.give_back(second)
    pools.give_back(first)
    assert pools.take() == first  # the lowest free name first
    assert pools.take() == second
    assert pools.take() not in {first, second, third}
