"""Regenerate visits.csv, the quickstart's sample data (deterministic: same seed, same file).

python examples/data/generate_visits.py > examples/data/visits.csv
"""

import datetime as dt
import random

CITIES = ["Beijing", "Shanghai", "Hong Kong", "New York", "San Francisco", "Tokyo"]
DAYS = [dt.date(2017, 1, 1) + dt.timedelta(days=i) for i in range(90)] + [
    dt.date(2018, 1, 1) + dt.timedelta(days=i) for i in range(0, 365, 3)
]


def main(rows: int = 3000, seed: int = 20170101) -> None:
    rng = random.Random(seed)
    print("user_id,date,timestamp,city,age,sex,last_visit_date,cost,max_dwell_time,min_dwell_time")
    for _i in range(rows):
        day = rng.choice(DAYS)
        stamp = dt.datetime.combine(day, dt.time(rng.randrange(24), rng.randrange(60), rng.randrange(60)))
        last = stamp + dt.timedelta(minutes=rng.randrange(600))
        dwell = rng.randrange(1, 3600)
        print(
            f"{10000 + rng.randrange(500)},{day},{stamp:%Y-%m-%d %H:%M:%S},{rng.choice(CITIES)},"
            f"{rng.randrange(16, 80)},{rng.randrange(2)},{last:%Y-%m-%d %H:%M:%S},{rng.randrange(1, 500)},"
            f"{dwell},{dwell}"
        )


if __name__ == "__main__":
    main()
