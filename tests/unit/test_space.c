// SPDX-License-Identifier: GPL-2.0
/*
 * Log space policy: the cleaner levels of scalio_space.h, exact values on
 * the logs the suite and the bench use, and its rules checked over every
 * fill of a range of log sizes.
 */
#include "kselftest_harness.h"
#include "common/scalio_space.h"

/* The target's constants (target/scalio_store.h). */
#define BUF	512ULL
#define RESERVE	(2 * BUF + 2)
#define FLOOR	(RESERVE + BUF)

static struct scalio_space_levels levels(u64 log, u64 live)
{
	struct scalio_space_levels lv;

	scalio_space_levels(log, live, RESERVE, BUF, &lv);
	return lv;
}

/* A large, empty log keeps the fixed levels the cleaner always had. */
TEST(ample_room_fixed_levels)
{
	u64 log = 1ULL << 28;		/* 1 TiB of 4 KiB units */
	u64 low = RESERVE + log / 8;
	struct scalio_space_levels lv = levels(log, 0);

	EXPECT_EQ(lv.start, low);
	EXPECT_EQ(lv.goal, low + log / 8);
	/* Still so at 40 % live: three fifths of the log is room. */
	lv = levels(log, log / 10 * 4);
	EXPECT_EQ(lv.start, low);
	EXPECT_EQ(lv.goal, low + log / 8);
}

/* Past half full the levels follow the room: a quarter and a half. */
TEST(levels_follow_the_room)
{
	u64 log = 1ULL << 28, live = log / 100 * 87;
	u64 room = log - live;
	struct scalio_space_levels lv = levels(log, live);

	EXPECT_EQ(lv.start, room / 4);
	EXPECT_EQ(lv.goal, room / 2);
}

/* The bench's 64 MiB SSD (16,316 units) at its measured 86.6 % fill. */
TEST(small_log_near_full_floor)
{
	u64 log = 16316, live = 14135;	/* 57,894,351 B live */
	struct scalio_space_levels lv = levels(log, live);

	/* Room 2,181 < 2 x floor: start and goal at the floor. */
	EXPECT_EQ(lv.start, FLOOR);
	EXPECT_EQ(lv.goal, FLOOR);
	/*
	 * Reachable: the goal lies within the room live data leaves (the
	 * old fixed levels, 3,065 and 5,104 free units, did not).
	 */
	EXPECT_TRUE(lv.goal <= log - live);
}

/* The suite's 24 MiB SSD (12-cleaner): the floor, and room to aim at. */
TEST(suite_log_levels)
{
	u64 log = 6100;
	struct scalio_space_levels lv = levels(log, 300);

	EXPECT_EQ(lv.start, FLOOR);
	EXPECT_EQ(lv.goal, RESERVE + 2 * BUF + log / 8);
}

/* More live data than log (cannot happen; must not wrap around). */
TEST(no_room)
{
	struct scalio_space_levels lv = levels(8192, 9000);

	EXPECT_EQ(lv.start, FLOOR);
	EXPECT_EQ(lv.goal, FLOOR);
	lv = levels(8192, 8192);
	EXPECT_EQ(lv.start, FLOOR);
	EXPECT_EQ(lv.goal, FLOOR);
}

/*
 * The rules, for every live size of a range of logs:
 *  - floor <= start <= goal, and start never above the fixed level;
 *  - a goal above the floor is reachable from garbage and leaves at least
 *    half the room to garbage (goal <= room / 2);
 *  - more live data never raises either level.
 */
TEST(rules_every_fill)
{
	static const u64 logs[] = { 4096, 6100, 16316, 65536, 1000003,
				    1ULL << 28 };
	unsigned int i;

	for (i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		u64 log = logs[i], low = RESERVE + (log / 8 > 2 * BUF ?
						   log / 8 : 2 * BUF);
		u64 step = log / 4096 ? log / 4096 : 1, live;
		struct scalio_space_levels prev = levels(log, 0);

		for (live = 0; live <= log + step; live += step) {
			struct scalio_space_levels lv = levels(log, live);
			u64 room = log > live ? log - live : 0;

			ASSERT_TRUE(lv.start >= FLOOR);
			ASSERT_TRUE(lv.start <= lv.goal);
			ASSERT_TRUE(lv.start <= low);
			ASSERT_TRUE(lv.goal <= low + log / 8);
			if (lv.goal > FLOOR)
				ASSERT_TRUE(lv.goal <= room / 2);
			ASSERT_TRUE(lv.start <= prev.start);
			ASSERT_TRUE(lv.goal <= prev.goal);
			prev = lv;
		}
	}
}

TEST_HARNESS_MAIN
