{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    unique_key=['user_id'],
    distributed_by=['user_id'],
    buckets=1
) }}
-- a UNIQUE KEY table: each run upserts one row per user
select user_id, count(*) as visits, sum(cost) as cost
from {{ ref('visits') }}
group by user_id
