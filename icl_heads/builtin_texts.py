"""Long English documents written for this project (CC0), the built-in stand-in for
WikiText-2 / the Pile in the token-loss experiment (Y6). Each is long enough for the
500th token under the default models' tokenizers."""
from __future__ import annotations

ESSAYS = [
    """The lighthouse on the northern headland was built in the spring of a year when the harbour
had lost three fishing boats to the rocks in a single month. The keeper who came with it was a
quiet man named Tomas, and for the first winter he spoke to almost no one in the village. He
walked down to the market on Saturdays, bought bread, lamp oil and a newspaper, and walked back up
the long path before the light began to fail. The children thought he was a ghost. The fishermen
thought he was a spy for the harbour board. The baker, who was the only person he spoke to at any
length, thought he was simply shy, and said so to anyone who would listen.

In the second winter a storm came in from the west that was worse than anything the older people
could remember. It began in the afternoon with a strange yellow light over the sea, and by evening
the waves were breaking over the harbour wall. Two boats were still out. Their families stood on
the quay with lanterns, watching the black water and saying nothing. Up on the headland the lamp
turned as it always did, but the wind was so strong that the keeper had to tie himself to the
railing of the gallery to clean the salt from the glass. He did this every hour through the night,
because a light that cannot be seen is no better than no light at all.

Near midnight the first boat came round the point, low in the water and listing badly, and found
the harbour mouth by following the beam. The second boat did not come. At dawn, when the wind
dropped, the keeper took the small rowing boat that belonged to the lighthouse and went out alone
along the foot of the cliffs. He found the missing boat wedged between two rocks in a narrow cove,
its mast broken and its crew of three sitting cold and frightened on a ledge above the tide. It
took him four trips to bring them all back, and by the last trip his hands were bleeding from the
oars.

After that the village changed its mind about Tomas. The children stopped calling him a ghost and
began to follow him up the path to ask questions about the lamp, the clockwork that turned it, and
the logbook where he wrote down the weather every four hours. The fishermen began to leave fish on
his doorstep. The baker said that she had known all along. Tomas himself did not seem to change
very much. He still walked down on Saturdays, still bought bread, lamp oil and a newspaper, and
still walked back before dark. But now, when someone greeted him on the path, he would stop, and
lift his hat, and sometimes he would even talk for a while about the sea, the wind, and the way the
light looks from the water on a clear night when you are tired and a long way from home.""",
    """Most of what we know about the ancient trade in salt comes not from written records but from
the roads themselves. Long before coins were common, salt was carried from the coast and from a few
inland springs to villages that had none, and the paths it travelled became the first routes that
connected distant valleys. Archaeologists can still trace some of them by the small stone shelters
built a day's walk apart, by the wear on old bridges, and by the names of places that once marked a
crossing, a market, or a toll.

Salt was valuable for a simple reason: people and animals need it, and before refrigeration it was
the most reliable way to keep meat and fish through the winter. A family that could not buy salt in
the autumn might go hungry in the spring. This gave the people who controlled the springs and the
coastal pans a great deal of power. In some regions the right to make salt belonged to the ruler,
who sold licences to merchants and collected a tax at every stage. In others it belonged to a
monastery or to a town, and the income paid for walls, churches, and the wages of the guards who
protected the road.

The work of making salt was hard and often dangerous. On the coast, sea water was let into shallow
ponds and left to evaporate in the sun, and the crust that formed was raked into heaps and carried
away in baskets. Where the climate was too cold or wet for that, brine was boiled in large lead or
iron pans over wood fires, which used enormous amounts of fuel. Whole forests were cut down to feed
the fires, and in some places the loss of the trees changed the land for centuries. Inland, brine
was drawn from deep wells with buckets and wheels, and the workers who lived beside the boiling
houses suffered from the smoke and the heat.

The merchants who moved the salt were a varied group. Some were wealthy traders who owned many
animals and employed drivers, while others were farmers who made one journey a year with a single
mule to earn a little extra money before the winter. They travelled in groups for safety, carried
their own food, and slept in the shelters along the road. Because they went from valley to valley,
they also carried news, songs, and new ideas, and historians have argued that the salt roads spread
as much culture as they did goods.

The trade declined slowly. Railways made it cheaper to move salt in bulk from a few large works,
and new methods of mining rock salt made the old springs and coastal pans less important. The last
of the small boiling houses closed in the early part of the twentieth century. Today the roads are
used by walkers rather than mules, and the shelters are ruins, but in many villages the old route is
still called the salt road, and the stories of the people who travelled it are still told.""",
    """Learning to bake bread at home is less a matter of following a recipe than of learning to read
the dough. The same flour behaves differently on a warm day and a cold one, and the same recipe can
give a light loaf in one kitchen and a heavy one in another. Experienced bakers do not measure time
so much as they watch for signs: how the dough feels under the hand, how it springs back when it is
pressed, how much it has grown in the bowl, and how it smells as it rises.

The simplest bread needs only four things: flour, water, salt and yeast. The flour provides the
starch that feeds the yeast and the proteins that form gluten, the stretchy network that traps gas
and lets the loaf rise. The water brings the flour to life. The salt controls the yeast, tightens
the gluten and gives the bread its flavour; bread made without it tastes flat no matter how good the
flour. The yeast, finally, eats the sugars in the dough and releases carbon dioxide, which fills
the tiny pockets held by the gluten and makes the dough grow.

Kneading is the step that most beginners either rush or skip. Its purpose is to organise the gluten,
turning a shaggy, sticky mass into a smooth and elastic dough. Ten minutes of steady kneading by
hand is usually enough. A good test is to stretch a small piece of dough between the fingers: if it
can be pulled thin enough to let light through without tearing, the gluten is ready. If it tears at
once, the dough needs more work, or more rest, since time alone also develops the gluten.

The first rise should happen somewhere warm but not hot, with the bowl covered so that the surface
does not dry out. Depending on the temperature it may take one hour or three. The dough is ready
when it has roughly doubled in size and a finger pressed into it leaves a dent that fills back
slowly. It is then turned out, gently pressed to remove the largest bubbles, and shaped. Shaping
matters more than it seems: a loaf with a tight outer skin holds its form and rises upwards in the
oven, while a loosely shaped one spreads sideways and bakes flat.

After a second, shorter rise, the loaf goes into a very hot oven. Many bakers add steam for the first
few minutes, either with a tray of water or by baking inside a covered pot, because a moist surface
stays soft for longer and lets the bread expand before the crust sets. When the crust is deep brown
and the loaf sounds hollow when tapped underneath, it is done. The hardest part comes last: the bread
should cool for at least an hour before it is cut, because the inside is still cooking and setting as
the steam escapes. Cut too early, even a perfect loaf will seem damp and heavy.""",
]


def builtin_text(name: str) -> dict:
    if name != "english_essays":
        raise KeyError(f"unknown built-in text {name!r}; known: english_essays")
    return {"kind": "text", "description": "three long English essays written for this project",
            "template": {"query": "{input}"}, "label_words": None,
            "examples": [{"input": " ".join(e.split()), "output": ""} for e in ESSAYS]}


BUILTIN_TEXTS = {"english_essays"}
