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
the steam escapes. Cut too early, even a perfect loaf will seem damp and heavy. Left to cool
properly and wrapped in a clean cloth, a good loaf will keep its texture for several days, and the
last of it, when it has begun to dry, makes the best toast of all.""",
    """Anyone who has looked down at a lowland river from a hill or an aeroplane will have noticed
that it almost never runs straight. Instead it swings from side to side in long, looping bends, some
so tight that the water seems to turn back on itself before continuing on its way. These bends are
called meanders, and although they look like the result of chance, they follow from a few simple
rules about how moving water behaves.

Imagine a river flowing along a perfectly straight channel. No real channel stays perfect for long.
A fallen tree, a bank of softer soil, or a small heap of gravel is enough to push the current a
little towards one side. Where the fast water strikes the bank, it begins to wear it away, and the
channel bulges outwards. On the opposite side the water slows down, and slow water cannot carry as
much sand and mud as fast water, so it drops some of its load. The result is a bend with a steep,
eroding outer bank and a gentle, growing inner bank.

Once a bend has started, it tends to grow. Water going round a curve is thrown towards the outside,
just as a passenger in a car is pressed against the door on a sharp turn. This piles the water up
slightly against the outer bank and sets up a slow, spiralling flow. Near the surface the current
moves outwards, towards the eroding bank; near the bed it moves inwards, carrying sediment across to
the inner bank, where it settles to form what geologists call a point bar. Year by year the outer
bank retreats and the inner bank advances, and the whole bend creeps sideways and downstream across
the valley floor.

This process cannot continue forever. As the loops grow larger, the neck of land between two
neighbouring bends becomes narrower. Sooner or later, often during a flood, the river breaks through
the neck and takes the shorter route. The old loop is left behind, cut off from the main channel,
and its ends quickly fill with mud. What remains is a curved lake, known as an oxbow lake, which may
survive for centuries as a quiet home for water birds and reeds before it slowly turns into marsh
and then into dry land.

Meanders are most common where the land is nearly flat and the banks are made of material that is
easy to erode but firm enough to hold a shape, such as a mixture of sand, silt and clay. In steep
mountain valleys, rivers are too busy cutting downwards to wander much from side to side, and their
channels are often straight or broken into many braided threads. Plants play a surprising part as
well. The roots of trees and grasses bind the soil of the banks together, and some researchers
believe that the spread of land plants in the distant past helped rivers to settle into single
winding channels instead of wide, shifting sheets of gravel.

For the people who live beside them, meandering rivers are both a gift and a problem. The
floodplains they build are among the most fertile soils on earth, because every flood spreads a
fresh layer of silt over the fields. But a river that moves cannot be relied upon to stay where it
is. Farms, roads and even boundaries drawn along a river have found themselves on the wrong side of
it after a single wet season. Engineers have often tried to straighten rivers to speed up shipping
and drain the land, but a straightened river flows faster, erodes more strongly downstream, and
floods towns that were once safe. In recent years some of those channels have been allowed to wander
again, in the hope that a river given room to bend will in the end be easier to live with.""",
    """The ferry leaves from the end of a wooden pier just after sunrise, when the mist is still
lying on the water and the far bank is no more than a grey line. It is an old boat with a flat
bottom and a tin roof, painted a blue that has faded to the colour of a winter sky. Passengers sit
on benches along both sides, and the space in the middle fills up with everything that cannot easily
travel by road: sacks of rice, crates of live chickens, a bicycle, a coil of rope, and once, on the
morning I made the trip, a small wardrobe with a mirror in its door.

For the first hour the river is wide and slow, and the boat keeps close to one bank. The country
here is almost perfectly flat. Fields of young rice stretch away on both sides, so green that they
seem to glow, and they are divided by narrow earth walls along which people walk in single file with
tools on their shoulders. Every so often there is a cluster of houses raised on posts, with a boat
tied underneath and washing hanging from the rails of the veranda. Children run down to the water to
wave, and the old women on the ferry wave back without interrupting their conversations.

Around the middle of the morning the river begins to divide. It splits into channels, then the
channels split again, and the ferry turns into one of the narrower ones, where palms lean over the
water from both sides and their reflections make a kind of tunnel. The engine is throttled back and
the noise drops to a steady murmur. In the shade it is suddenly cool. Kingfishers dart from branch
to branch ahead of the bow, and in the shallows a man stands waist deep with a net, waiting for the
ripples of the boat to pass before he casts again.

The ferry stops wherever someone wants to get on or off. There is no timetable that anyone follows
and no proper landing stage at most of the stops, only a plank laid from the side of the boat to a
muddy step cut into the bank. A woman with a basket of fruit climbs aboard at one village and sells
most of her load before the next one. A young man carries the wardrobe ashore with the help of two
friends who have been waiting for it under a tree. At a larger village there is a floating market,
and for a while the ferry is surrounded by small canoes piled with pumpkins, coconuts and bunches of
herbs, their owners calling out prices and reaching across the gap to take money and hand over
change.

By early afternoon the heat is heavy and most of the passengers are asleep, their heads resting on
bags or on each other's shoulders. The boy who collects the fares sits on the roof with his legs
hanging over the edge, watching the banks go by. The channel widens again and the palms give way to
orchards, then to brick kilns with tall chimneys, then to the first houses of the town where the
journey ends. The water here is busier, crowded with cargo barges and fast little boats that cut
across the ferry's path and rock it in their wake.

The pier in the town is concrete rather than wood, and there are taxis waiting on the road above it.
It would have been possible to make the same journey in half the time by bus. But the bus would have
shown only the road and the backs of the buildings along it. From the river, the country reveals
itself as it has always been arranged, with its houses facing the water, its markets floating, and
its life moving at the pace of a slow boat on a warm day.""",
    """Agnes Marlow was born in a small market town where her father repaired clocks in a narrow
shop beneath the family's rooms. As a child she spent long afternoons on a stool beside his bench,
watching him take apart the movements that customers brought in wrapped in handkerchiefs and
newspaper. He rarely explained what he was doing, but he let her hold the tweezers and sort the tiny
screws into the compartments of a wooden tray, and by the time she was ten she could name every part
of a common pocket watch and tell, from the sound of its ticking, whether it was likely to be
running fast or slow.

Her father assumed that the shop would pass to her younger brother, and for a while so did she. The
brother, however, had no patience for small things. He left to work on the railways as soon as he
was old enough, and Agnes, who had been helping at the bench for years by then, quietly took over
the repairs. Customers were at first surprised to find a young woman behind the counter, and a few
took their clocks elsewhere. Most came back. She was slower than her father had been, but she was
careful, and the clocks she mended tended to stay mended.

The turning point in her life came when a local landowner brought in a large astronomical clock that
had stood in his family's hall for generations and had not worked within living memory. It showed
not only the hours but the phases of the moon, the positions of the sun among the stars, and the
times of high tide at the nearest port. Two other clockmakers had looked at it and refused the work.
Agnes took it apart over the course of a winter, drawing every wheel and lever in a notebook before
she removed it, and slowly worked out how the whole machine was meant to fit together. Several parts
were missing and had to be made from scratch on her father's old lathe. When the clock was finally
returned to the hall and set going, the landowner invited half the county to see it, and her name
began to travel.

In the years that followed she was asked to repair clocks in churches, colleges and town halls
across the region. She travelled with a leather case of tools and often stayed for weeks in cold
towers, working by lamplight among the dusty gears of mechanisms that had been neglected for
decades. She kept detailed notebooks on every job, recording not only the faults she found but the
marks left by earlier repairers, and over time these notebooks became a kind of informal history of
the craft in that part of the country. Scholars who later read them were struck by how often she had
identified the work of particular makers simply from the way they cut their teeth or finished their
pivots.

She never married, though she had many friends, and she took on a succession of apprentices, most of
them girls from the town who, like her, had been told that such work was not for them. She was known
as a demanding teacher who could spend an entire morning making a pupil file the same small piece of
brass until it was exactly right. Several of her apprentices went on to open shops of their own, and
one of them eventually took over the old premises beneath the rooms where Agnes had grown up.

In old age her eyesight failed, and she could no longer do fine work. She spent her last years
sorting her notebooks and writing letters to the people who had inherited her clocks, reminding them
when each one would need cleaning. When she died, the bells of the church whose clock she had
restored rang at the wrong hour, for the first time anyone could remember. Some said it was a fault
in the mechanism. Others preferred to believe it was a salute.""",
    """Paper is so ordinary today that it is easy to forget it was once a rare and carefully guarded
invention. Before it existed, people wrote on whatever surfaces they could find or make: clay
tablets, strips of bamboo, sheets of papyrus pressed from the stems of a water plant, and parchment
made from the scraped and stretched skins of animals. Each of these had drawbacks. Clay was heavy,
bamboo was bulky, papyrus grew well only in a few places, and parchment was so expensive that a
single large book might require the skins of an entire flock.

The earliest true paper was made in China, where craftsmen discovered that plant fibres could be
beaten into a pulp, mixed with water, and then lifted out on a fine screen so that they matted
together into a thin sheet. When the sheet was pressed and dried, the tangled fibres held together
on their own. The first papers were made from materials such as hemp, old fishing nets, tree bark
and worn cloth. The method was refined over many generations, and paper became the normal material
for official records, letters, books and even clothing and money.

For several centuries the secret of papermaking stayed largely within East Asia. It spread gradually
along the trade routes, first to neighbouring kingdoms and then westward into Central Asia and the
Middle East. According to a story that historians now treat with some caution, the craft reached the
city of Samarkand when papermakers were taken prisoner in a battle and put to work. Whatever the
exact route, cities across the Islamic world soon had thriving paper mills, and the cheap new
material helped to support an extraordinary growth in scholarship, libraries and the copying of
books.

From there the craft passed into Europe, first through Spain and Italy. European papermakers built
mills beside rivers and used water wheels to drive heavy wooden hammers that pounded old linen rags
into pulp. They introduced stiff moulds made of wire and added a coating of animal glue so that the
surface would take ink from a quill without blotting. They also began to twist thin wire into shapes
on the surface of the mould, leaving a faint image in each sheet that could be seen when it was held
up to the light. These watermarks identified the mill that made the paper and are still used by
historians to date old documents.

The arrival of the printing press made paper more important than ever, and for a long time the real
limit on the number of books that could be produced was the supply of rags. Rag collectors travelled
from house to house buying old shirts and sheets, and in some places it was forbidden to bury the
dead in linen because the cloth was too valuable to lose. Inventors searched for a substitute,
experimenting with straw, nettles, and even wasp nests, after one naturalist noticed that wasps made
a kind of paper by chewing wood.

The eventual answer was indeed wood. In the nineteenth century, machines were developed that could
grind logs into pulp or break them down with chemicals, and other machines that could form paper in
a continuous roll instead of one sheet at a time. Paper became cheap enough to be thrown away after
a single use, and newspapers, cheap novels, packaging and school exercise books became part of
everyday life. The cost was felt in the forests and rivers around the mills, which suffered badly
from logging and pollution until cleaner methods and recycling became common.

Despite the spread of screens, paper has not disappeared, and the old handmade methods have not
entirely vanished either. Small workshops still beat fibres by hand, lift sheets from the vat one at
a time, and dry them on felts, producing paper that will outlast almost anything made by machine.""",
    """There is a drawer in my kitchen that holds things waiting to be mended. At the moment it
contains a teapot lid with a chipped knob, a belt whose buckle has come loose, a lamp switch, a
child's wooden train missing a wheel, and a pair of reading glasses with one arm hanging by a
thread. Some of these have been in the drawer for months. Every so often I open it, look at them,
feel a small pang of guilt, and close it again. Yet I cannot bring myself to throw them away, and I
have begun to wonder why.

Part of the answer is plain thrift. My grandparents lived through hard years, and they passed on a
horror of waste that I have never quite shaken off. To them, throwing away something that could be
repaired was not merely foolish but faintly shameful, as if it showed a lack of respect for the work
that had gone into making it. My grandmother darned socks until they were more darning than sock. My
grandfather kept jars of screws, nails and washers sorted by size, and could produce the right one
for almost any job from the depths of his shed.

But thrift does not explain everything. It would often be cheaper, in money if not in principle, to
buy a new lamp than to spend an evening tracing a fault in the old one. What keeps me attached to
the things in the drawer is something closer to affection. A mended object carries its history with
it. The teapot was a wedding present. The wooden train has been chewed by two generations of small
children. When I repair them, I am not only restoring their usefulness but also keeping a thread of
memory unbroken.

There is also the pleasure of the work itself, which is different from the pleasure of making
something new. Making begins with an idea and moves towards a finished thing. Mending begins with a
finished thing that has failed and asks you to understand why. You have to look closely, take it
apart, and see how the pieces were meant to fit together. In the process you learn how it was made,
and often you gain a new respect for the person who made it. A well designed object reveals its
logic when you open it, and a poorly designed one reveals its shortcuts, and both are instructive.

Mending also teaches a particular kind of patience. Glue must be left to set. A seam must be sewn
one stitch at a time. A stripped thread cannot be forced without making things worse. In a life full
of instant results, it is steadying to spend an hour on a task that cannot be hurried, and to find
at the end of it that something broken now works again. The satisfaction is small but real, and it
lasts longer than the satisfaction of a purchase, which tends to fade as soon as the packaging is in
the bin.

I do not want to make too much of this. Many modern things are built in ways that make them nearly
impossible to repair, sealed with special screws or glued into cases that cannot be opened without
breaking them. Nobody can reasonably be expected to mend everything, and there is no virtue in
keeping a drawer full of junk out of stubbornness. Some of what is in my own drawer will probably
never be fixed, and one day I will have to admit it.

Still, I think the drawer says something about the kind of relationship we might have with the
objects around us. It is possible to treat them as disposable, to be replaced whenever they falter,
or to treat them as companions that deserve some care. The second way is slower and sometimes more
trouble. But it leaves us, I suspect, a little more attentive, a little more capable, and a little
more at home among our own belongings. Perhaps this weekend I will finally fix the lamp.""",
    """The summer her grandfather hurt his back, Mira was given the bees. He told her this from the
sofa, where he lay flat with a cushion under his knees and a look of deep irritation on his face,
and she understood at once that he would rather have given them to anyone else. But her mother was
working, her uncle lived too far away, and the bees, as her grandfather said, did not care whose
back was broken. They needed checking every week.

She had watched him at the hives many times, always from a safe distance behind the gooseberry
bushes. Now she had to put on his veil and his old canvas jacket, which smelled of smoke and wax and
came down almost to her knees. The gloves were so large that she could barely hold the smoker. She
walked down to the bottom of the orchard feeling ridiculous, and when she reached the first hive and
heard the low, steady hum coming from inside it, she stood still for a long time before she dared to
lift the roof.

Her grandfather had given her instructions, and she went through them in her head. Move slowly. Puff
a little smoke at the entrance and wait. Never stand in front of the hive where the bees fly in and
out. Lift each frame straight up, without knocking it against its neighbours. Look for eggs, for the
pale curled larvae, for the capped cells of honey along the top. Look for the queen if you can, but
do not worry if you cannot. Above all, do not panic, because the bees can tell.

The first week was terrifying. Her hands shook so much that she dropped a frame back into the box
with a thud, and a cloud of angry bees rose around her veil. She retreated to the gooseberries and
waited, her heart pounding, until they settled. Then she went back and finished the job, more slowly
than before. When she returned to the house and described everything she had seen, her grandfather
asked so many questions that she realised she had not looked closely enough, and the next week she
took a notebook.

By the third week something had changed. She still moved carefully, but she no longer felt that the
bees were about to attack her. She began to notice how differently the three colonies behaved. One
was calm and gentle, and she could work it almost without smoke. Another was nervous and loud, its
bees running about the frames in every direction. The third was small and seemed to be struggling,
and when she mentioned this to her grandfather he frowned and asked whether she had seen any eggs.
She had not. He explained that the colony might have lost its queen, and together they worked out a
plan to give it a frame of eggs from the gentle hive so the workers could raise a new one.

It was the most anxious fortnight of her summer. She checked the small hive every few days, peering
at the frame she had moved, and one afternoon she found a large cell hanging from its lower edge
like a peanut shell. Her grandfather, when she told him, smiled for the first time since his
accident. Some weeks later she saw the new queen herself, long and golden, walking across a frame
with a ring of workers around her, and she had to stop herself from shouting.

By the end of the summer her grandfather was able to walk down to the orchard with a stick. He stood
behind the gooseberries and watched her open the hives without saying a word. When she had closed
the last one he came forward, looked at her notebook, and nodded. The next spring, without anyone
discussing it, there were two veils hanging by the back door, and the smaller jacket fitted her
perfectly.""",
    """When you drop a letter into a post box, it disappears into a system so familiar that few
people stop to think about how it works. Yet the journey from the box on the corner to a letterbox
in another town involves a long chain of people and machines, each doing a small part of the job,
and most of it happens while the sender and the receiver are asleep.

The journey begins with collection. Each post box is emptied at set times during the day, and the
collection time is usually printed on a small plate on the front. A driver opens the box with a key,
tips the letters into a sack, and moves on to the next box on the route. By late afternoon the sacks
from dozens of boxes, along with the mail handed in at post office counters and the large bundles
sent by businesses, are on their way to a sorting centre that may serve a whole region.

At the sorting centre the first task is to separate the mail by shape. Letters, large envelopes and
parcels cannot be handled by the same machines, so they are divided at the start. The letters are
then turned so that they all face the same way, with the stamp in the same corner. A machine checks
each stamp and prints a postmark across it, cancelling it so that it cannot be used again and
recording where and when the letter entered the system.

The most important step is reading the address. Cameras photograph every envelope as it speeds past
on a belt, and software tries to read the postal code and the rest of the address. When the address
is clearly printed, this takes only a fraction of a second. When the machine cannot make sense of
it, perhaps because the handwriting is poor or the envelope is crumpled, the image is sent to a
person at a screen, who reads it and types in the details. Once the address is known, the machine
prints a pattern of small marks on the envelope, a kind of code that later machines can read much
more quickly than any written word.

Using that code, the letters are sorted into trays according to their destination. Mail for nearby
areas stays in the region, while mail for distant places is loaded onto lorries, trains or aircraft
that travel through the night to other sorting centres. There the process is repeated in reverse:
the incoming mail is sorted again into finer and finer groups, first by town, then by district, and
finally by the route of an individual postal worker.

In the early morning the trays arrive at local delivery offices. Modern machines can now arrange the
letters into the exact order in which the houses on a route will be visited, a job that used to be
done by hand on tall wooden frames with a pigeonhole for every address. The postal worker collects
the prepared bundles, adds any parcels and items that need a signature, and sets off on foot, by
bicycle or by van.

The final stage looks much as it has for generations. The postal worker walks up the path, pushes
the letter through the slot or drops it into the box, and carries on to the house beside it. Along the
way there are always small problems to solve: a house number that does not exist, a family that has
moved away, a dog that will not let anyone near the gate. Letters that cannot be delivered are
marked and returned to the sender, or kept at the office to be collected.

Most of the time, though, the system works so smoothly that we notice it only when it fails. A
letter posted one evening in one town lies on a doormat in another the following morning, having
passed through many hands and machines along the way, none of which the sender ever sees.""",
]


def builtin_text(name: str) -> dict:
    if name != "english_essays":
        raise KeyError(f"unknown built-in text {name!r}; known: english_essays")
    return {"kind": "text", "description": "ten long English essays written for this project",
            "template": {"query": "{input}"}, "label_words": None,
            "examples": [{"input": " ".join(e.split()), "output": ""} for e in ESSAYS]}


BUILTIN_TEXTS = {"english_essays"}
