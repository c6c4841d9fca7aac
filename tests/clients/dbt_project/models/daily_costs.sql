{{ config(
    materialized='table',
    duplicate_key=['day'],
    partition_by=['day'],
    partition_by_init=["PARTITION p202401 VALUES [('2024-01-01'), ('2024-02-01'))"],
    distributed_by=['day'],
    buckets=2,
    properties={'replication_num': '1'}
) }}
select `day`, count(*) as visits, sum(cost) as cost
from {{ ref('visits') }}
group by `day`
