{{ config(
    materialized='incremental',
    incremental_strategy='append',
    duplicate_key=['visit_id'],
    distributed_by=['visit_id'],
    buckets=1
) }}
-- each run appends the seed's visits once more: after two runs every visit is there twice
select visit_id, user_id, city
from {{ ref('visits') }}
