{{ config(materialized='view') }}
select visit_id, user_id, `day`, cost
from {{ ref('visits') }}
where city = 'Paris'
