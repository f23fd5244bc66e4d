"""Hand-written tasks: antonym, english_french, topic_noun, masculine_feminine,
english_french_feminine.

No pinned package holds these facts (word opposites, English->French
translations, noun topics, gendered noun pairs), so they are written here by
hand as Python literals; the selection rule of each list is in the comment
above it. The order of every list is the order of its examples, so the output
is the same on every machine. `_check` at the bottom guards the rules that
can be checked mechanically (no duplicate inputs, no empty outputs, balanced
labels, the antonym pairs one direction only, every input of
english_french_feminine an input of masculine_feminine); it runs in every
builder.
"""
from __future__ import annotations

# Share of the examples that become the test split (icl_heads/data.py
# `_split_one`: round(n * fraction) test examples).
_TEST_FRACTION = 0.75
# The gender tasks are limited by the language itself (English has only so
# many masculine nouns with a feminine counterpart), so half is kept for
# demonstrations.
_GENDER_TEST_FRACTION = 0.5


def _pairs(pairs: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"input": a, "output": b} for a, b in pairs]


def _labelled(groups: dict[str, list[str]]) -> list[dict[str, str]]:
    """Interleave the groups (label -> inputs) so that every prefix is near balanced
    (the same as icl_heads/builtin_tasks.py `_labelled`)."""
    out: list[dict[str, str]] = []
    longest = max(len(v) for v in groups.values())
    for i in range(longest):
        for label, inputs in groups.items():
            if i < len(inputs):
                out.append({"input": inputs[i], "output": label})
    return out


# ---------------------------------------------------------------------------
# antonym: common English words with a single clear opposite.
# Rules: one direction per pair, and no word is both an input and an output
# anywhere in the list (so neither hot->cold and cold->hot, nor chains such
# as soft->hard beside hard->easy); an output may answer two inputs where
# both have that one opposite (tall->short, long->short). Words with two
# usual opposites are left out as inputs (hard: soft/easy; open:
# closed/close; sweet: sour/bitter; light: dark/heavy; easy: difficult/hard;
# start: finish/stop; present: absent/past; active: passive/inactive).
# Lexical opposites are preferred; un-/in-/im-/ir-/dis- forms only where
# they are the standard opposite. The first 71 pairs are the project's
# earlier hand list.
# ---------------------------------------------------------------------------

_ANTONYMS = [
    # the earlier hand list, unchanged
    ("hot", "cold"), ("big", "small"), ("up", "down"), ("good", "bad"),
    ("fast", "slow"), ("happy", "sad"), ("tall", "short"), ("rich", "poor"),
    ("strong", "weak"), ("wet", "dry"), ("early", "late"), ("empty", "full"),
    ("thick", "thin"), ("wide", "narrow"), ("clean", "dirty"),
    ("loud", "quiet"), ("true", "false"), ("win", "lose"), ("buy", "sell"),
    ("push", "pull"), ("above", "below"), ("inside", "outside"),
    ("alive", "dead"), ("day", "night"), ("black", "white"),
    ("north", "south"), ("east", "west"), ("left", "right"), ("love", "hate"),
    ("first", "last"), ("always", "never"), ("before", "after"),
    ("top", "bottom"), ("friend", "enemy"), ("question", "answer"),
    ("male", "female"), ("cheap", "expensive"), ("safe", "dangerous"),
    ("young", "old"), ("increase", "decrease"), ("accept", "reject"),
    ("include", "exclude"), ("maximum", "minimum"), ("positive", "negative"),
    ("major", "minor"), ("import", "export"), ("visible", "invisible"),
    ("possible", "impossible"), ("legal", "illegal"), ("polite", "rude"),
    ("heavy", "light"), ("deep", "shallow"), ("smooth", "rough"),
    ("victory", "defeat"), ("war", "peace"), ("entrance", "exit"),
    ("remember", "forget"), ("asleep", "awake"), ("give", "take"),
    ("ancient", "modern"), ("plus", "minus"), ("sunrise", "sunset"),
    ("winter", "summer"), ("float", "sink"), ("whisper", "shout"),
    ("borrow", "lend"), ("husband", "wife"), ("king", "queen"),
    ("boy", "girl"), ("brother", "sister"),
    # adjectives
    ("long", "short"), ("new", "old"), ("dark", "light"), ("soft", "hard"),
    ("high", "low"), ("near", "far"), ("beautiful", "ugly"), ("fat", "thin"),
    ("warm", "cool"), ("tight", "loose"), ("raw", "cooked"),
    ("hollow", "solid"), ("quick", "slow"), ("huge", "tiny"),
    ("large", "small"), ("same", "different"), ("boring", "interesting"),
    ("noisy", "quiet"), ("married", "single"), ("wild", "tame"),
    ("sober", "drunk"), ("brave", "cowardly"), ("wise", "foolish"),
    ("guilty", "innocent"), ("common", "rare"), ("private", "public"),
    ("natural", "artificial"), ("optimistic", "pessimistic"),
    ("horizontal", "vertical"), ("junior", "senior"), ("superior", "inferior"),
    ("temporary", "permanent"), ("singular", "plural"), ("even", "odd"),
    ("urban", "rural"), ("real", "fake"), ("transparent", "opaque"),
    ("wrong", "right"), ("dense", "sparse"), ("primary", "secondary"),
    ("initial", "final"), ("previous", "next"), ("former", "latter"),
    ("sudden", "gradual"), ("general", "specific"), ("abstract", "concrete"),
    ("masculine", "feminine"), ("northern", "southern"),
    ("eastern", "western"), ("inner", "outer"), ("upper", "lower"),
    ("interior", "exterior"), ("internal", "external"), ("best", "worst"),
    ("better", "worse"), ("careful", "careless"), ("useful", "useless"),
    ("harmful", "harmless"),
    # the standard prefixed opposites
    ("honest", "dishonest"), ("patient", "impatient"), ("mature", "immature"),
    ("correct", "incorrect"), ("complete", "incomplete"),
    ("formal", "informal"), ("known", "unknown"), ("fair", "unfair"),
    ("usual", "unusual"), ("lucky", "unlucky"), ("mortal", "immortal"),
    ("regular", "irregular"), ("dependent", "independent"),
    ("finite", "infinite"),
    # quantity, place and direction
    ("many", "few"), ("more", "less"), ("most", "least"), ("much", "little"),
    ("all", "none"), ("everything", "nothing"), ("everybody", "nobody"),
    ("everywhere", "nowhere"), ("here", "there"), ("this", "that"),
    ("these", "those"), ("in", "out"), ("on", "off"), ("over", "under"),
    ("with", "without"), ("for", "against"), ("to", "from"), ("front", "back"),
    ("forward", "backward"), ("ahead", "behind"), ("together", "apart"),
    ("upstairs", "downstairs"), ("uphill", "downhill"),
    ("indoors", "outdoors"), ("yes", "no"), ("hello", "goodbye"),
    # nouns
    ("sun", "moon"), ("land", "sea"), ("heaven", "hell"), ("angel", "devil"),
    ("hero", "villain"), ("predator", "prey"), ("employer", "employee"),
    ("buyer", "seller"), ("winner", "loser"), ("landlord", "tenant"),
    ("ancestor", "descendant"), ("adult", "child"), ("man", "woman"),
    ("father", "mother"), ("son", "daughter"), ("problem", "solution"),
    ("cause", "effect"), ("theory", "practice"), ("rule", "exception"),
    ("success", "failure"), ("profit", "loss"), ("life", "death"),
    ("joy", "sorrow"), ("hope", "despair"), ("pleasure", "pain"),
    ("truth", "lie"), ("fact", "fiction"), ("strength", "weakness"),
    ("order", "chaos"), ("presence", "absence"), ("knowledge", "ignorance"),
    ("noise", "silence"), ("virtue", "vice"), ("majority", "minority"),
    ("advantage", "disadvantage"), ("supply", "demand"), ("credit", "debit"),
    ("addition", "subtraction"), ("beginning", "end"),
    ("arrival", "departure"), ("input", "output"), ("head", "tail"),
    ("ceiling", "floor"), ("dawn", "dusk"), ("noon", "midnight"),
    ("morning", "evening"), ("yesterday", "tomorrow"), ("future", "past"),
    ("reward", "punishment"), ("wealth", "poverty"), ("comedy", "tragedy"),
    # verbs
    ("come", "go"), ("laugh", "cry"), ("smile", "frown"), ("live", "die"),
    ("sit", "stand"), ("lock", "unlock"), ("tie", "untie"), ("pack", "unpack"),
    ("load", "unload"), ("freeze", "melt"), ("teach", "learn"),
    ("send", "receive"), ("lead", "follow"), ("attack", "defend"),
    ("advance", "retreat"), ("admit", "deny"), ("allow", "forbid"),
    ("attract", "repel"), ("create", "destroy"), ("add", "subtract"),
    ("multiply", "divide"), ("succeed", "fail"), ("find", "lose"),
    ("agree", "disagree"), ("appear", "disappear"), ("obey", "disobey"),
    ("connect", "disconnect"), ("approve", "disapprove"),
    ("encourage", "discourage"), ("inflate", "deflate"),
    ("maximize", "minimize"), ("ascend", "descend"), ("inhale", "exhale"),
    ("grow", "shrink"), ("deposit", "withdraw"), ("hire", "fire"),
    ("marry", "divorce"), ("ask", "answer"), ("rise", "fall"),
    ("lost", "found"), ("pass", "fail"), ("expand", "contract"),
    ("lengthen", "shorten"), ("widen", "narrow"), ("strengthen", "weaken"),
    ("tighten", "loosen"), ("begin", "end"), ("enter", "exit"),
    # more of each kind
    ("cruel", "kind"), ("curly", "straight"), ("boiling", "freezing"),
    ("inward", "outward"), ("upward", "downward"), ("mountain", "valley"),
    ("offense", "defense"), ("asset", "liability"), ("synonym", "antonym"),
    ("optimist", "pessimist"), ("amateur", "professional"),
    ("novice", "expert"), ("bride", "groom"), ("uncle", "aunt"),
    ("nephew", "niece"), ("ascent", "descent"), ("sane", "insane"),
    ("blessing", "curse"), ("innocence", "guilt"),
]


# ---------------------------------------------------------------------------
# english_french: single common English words -> their standard French
# translation (one word, hyphenated compounds allowed), lower case as French
# writes it, correct accents, the œ ligature as in the earlier list; nouns
# without the article, adjectives masculine singular, verbs in the
# infinitive. Left out: words spelt the same in both languages (table, lion,
# orange), English words with two usual translations (time, room, year,
# know, look, fly, light, work) and words that need several French words.
# Day and month names keep their English capital; French writes them lower
# case. The first 86 pairs are the project's earlier hand list.
# ---------------------------------------------------------------------------

_ENGLISH_FRENCH = [
    # the earlier hand list, unchanged
    ("dog", "chien"), ("cat", "chat"), ("house", "maison"), ("water", "eau"),
    ("bread", "pain"), ("book", "livre"), ("car", "voiture"),
    ("tree", "arbre"), ("sun", "soleil"), ("moon", "lune"), ("sea", "mer"),
    ("fire", "feu"), ("red", "rouge"), ("green", "vert"), ("blue", "bleu"),
    ("black", "noir"), ("white", "blanc"), ("big", "grand"),
    ("small", "petit"), ("day", "jour"), ("night", "nuit"), ("man", "homme"),
    ("woman", "femme"), ("child", "enfant"), ("friend", "ami"),
    ("school", "école"), ("city", "ville"), ("king", "roi"),
    ("queen", "reine"), ("apple", "pomme"), ("cheese", "fromage"),
    ("wine", "vin"), ("milk", "lait"), ("fish", "poisson"), ("bird", "oiseau"),
    ("horse", "cheval"), ("cow", "vache"), ("flower", "fleur"),
    ("garden", "jardin"), ("door", "porte"), ("window", "fenêtre"),
    ("chair", "chaise"), ("hand", "main"), ("head", "tête"),
    ("mouth", "bouche"), ("heart", "cœur"), ("love", "amour"),
    ("week", "semaine"), ("morning", "matin"), ("evening", "soir"),
    ("summer", "été"), ("winter", "hiver"), ("rain", "pluie"),
    ("snow", "neige"), ("wind", "vent"), ("sky", "ciel"), ("star", "étoile"),
    ("mountain", "montagne"), ("street", "rue"), ("world", "monde"),
    ("country", "pays"), ("family", "famille"), ("father", "père"),
    ("mother", "mère"), ("brother", "frère"), ("sister", "sœur"),
    ("boy", "garçon"), ("hot", "chaud"), ("cold", "froid"),
    ("happy", "heureux"), ("two", "deux"), ("three", "trois"),
    ("four", "quatre"), ("five", "cinq"), ("ten", "dix"), ("yes", "oui"),
    ("hat", "chapeau"), ("boat", "bateau"), ("beach", "plage"),
    ("forest", "forêt"), ("sugar", "sucre"), ("salt", "sel"),
    ("butter", "beurre"), ("meat", "viande"), ("chicken", "poulet"),
    ("kitchen", "cuisine"), ("church", "église"),
    # animals
    ("pig", "cochon"), ("sheep", "mouton"), ("goat", "chèvre"),
    ("mouse", "souris"), ("rabbit", "lapin"), ("duck", "canard"),
    ("bear", "ours"), ("wolf", "loup"), ("fox", "renard"), ("monkey", "singe"),
    ("frog", "grenouille"), ("snake", "serpent"), ("bee", "abeille"),
    ("butterfly", "papillon"), ("spider", "araignée"), ("ant", "fourmi"),
    ("bull", "taureau"), ("donkey", "âne"), ("whale", "baleine"),
    ("shark", "requin"), ("elephant", "éléphant"), ("turtle", "tortue"),
    ("eagle", "aigle"), ("squirrel", "écureuil"), ("snail", "escargot"),
    ("worm", "ver"), ("tiger", "tigre"), ("giraffe", "girafe"),
    ("camel", "chameau"), ("hen", "poule"), ("rooster", "coq"),
    ("lamb", "agneau"), ("crow", "corbeau"), ("swan", "cygne"),
    ("goose", "oie"), ("parrot", "perroquet"), ("dolphin", "dauphin"),
    ("wasp", "guêpe"), ("mosquito", "moustique"),
    # food and drink
    ("egg", "œuf"), ("beer", "bière"), ("coffee", "café"), ("tea", "thé"),
    ("juice", "jus"), ("rice", "riz"), ("soup", "soupe"), ("cake", "gâteau"),
    ("honey", "miel"), ("pepper", "poivre"), ("oil", "huile"),
    ("carrot", "carotte"), ("onion", "oignon"), ("garlic", "ail"),
    ("tomato", "tomate"), ("lemon", "citron"), ("pear", "poire"),
    ("strawberry", "fraise"), ("cherry", "cerise"), ("peach", "pêche"),
    ("banana", "banane"), ("mushroom", "champignon"), ("cabbage", "chou"),
    ("flour", "farine"), ("chocolate", "chocolat"), ("ham", "jambon"),
    ("beef", "bœuf"), ("cream", "crème"), ("vegetable", "légume"),
    ("meal", "repas"), ("dinner", "dîner"), ("food", "nourriture"),
    # the body
    ("eye", "œil"), ("ear", "oreille"), ("nose", "nez"), ("tooth", "dent"),
    ("arm", "bras"), ("leg", "jambe"), ("foot", "pied"), ("finger", "doigt"),
    ("knee", "genou"), ("neck", "cou"), ("shoulder", "épaule"),
    ("skin", "peau"), ("blood", "sang"), ("bone", "os"), ("face", "visage"),
    ("lip", "lèvre"), ("brain", "cerveau"), ("body", "corps"),
    # the home and things
    ("bed", "lit"), ("wall", "mur"), ("roof", "toit"), ("key", "clé"),
    ("knife", "couteau"), ("fork", "fourchette"), ("spoon", "cuillère"),
    ("plate", "assiette"), ("cup", "tasse"), ("glass", "verre"),
    ("bottle", "bouteille"), ("mirror", "miroir"), ("lamp", "lampe"),
    ("clock", "horloge"), ("pillow", "oreiller"), ("soap", "savon"),
    ("box", "boîte"), ("bag", "sac"), ("candle", "bougie"),
    ("basket", "panier"), ("umbrella", "parapluie"), ("wheel", "roue"),
    ("money", "argent"), ("gold", "or"), ("iron", "fer"), ("paper", "papier"),
    ("pen", "stylo"), ("pencil", "crayon"), ("letter", "lettre"),
    ("newspaper", "journal"), ("song", "chanson"), ("music", "musique"),
    ("game", "jeu"), ("toy", "jouet"), ("gift", "cadeau"),
    ("shoe", "chaussure"), ("shirt", "chemise"), ("dress", "robe"),
    ("coat", "manteau"), ("skirt", "jupe"), ("sock", "chaussette"),
    ("glove", "gant"), ("computer", "ordinateur"), ("flag", "drapeau"),
    ("sword", "épée"),
    # nature
    ("river", "rivière"), ("lake", "lac"), ("island", "île"),
    ("earth", "terre"), ("stone", "pierre"), ("sand", "sable"),
    ("grass", "herbe"), ("leaf", "feuille"), ("wood", "bois"),
    ("cloud", "nuage"), ("storm", "tempête"), ("ice", "glace"),
    ("fog", "brouillard"), ("field", "champ"), ("hill", "colline"),
    ("valley", "vallée"), ("ocean", "océan"), ("wave", "vague"),
    ("shadow", "ombre"), ("thunder", "tonnerre"), ("desert", "désert"),
    # places and people
    ("hospital", "hôpital"), ("bank", "banque"), ("shop", "magasin"),
    ("market", "marché"), ("library", "bibliothèque"), ("bridge", "pont"),
    ("road", "route"), ("castle", "château"), ("farm", "ferme"),
    ("airport", "aéroport"), ("museum", "musée"), ("park", "parc"),
    ("office", "bureau"), ("son", "fils"), ("daughter", "fille"),
    ("uncle", "oncle"), ("aunt", "tante"), ("grandfather", "grand-père"),
    ("baby", "bébé"), ("husband", "mari"), ("doctor", "médecin"),
    ("student", "étudiant"), ("soldier", "soldat"), ("baker", "boulanger"),
    ("thief", "voleur"), ("neighbor", "voisin"), ("lawyer", "avocat"),
    ("singer", "chanteur"), ("writer", "écrivain"), ("painter", "peintre"),
    ("priest", "prêtre"), ("enemy", "ennemi"), ("knight", "chevalier"),
    ("god", "dieu"),
    # abstract nouns
    ("word", "mot"), ("name", "nom"), ("language", "langue"),
    ("story", "histoire"), ("idea", "idée"), ("dream", "rêve"),
    ("life", "vie"), ("death", "mort"), ("peace", "paix"), ("war", "guerre"),
    ("truth", "vérité"), ("price", "prix"), ("army", "armée"),
    ("noise", "bruit"), ("voice", "voix"), ("color", "couleur"),
    ("weight", "poids"), ("health", "santé"), ("hunger", "faim"),
    ("thirst", "soif"), ("fear", "peur"), ("joy", "joie"), ("anger", "colère"),
    ("mistake", "erreur"), ("end", "fin"), ("side", "côté"),
    ("middle", "milieu"), ("north", "nord"), ("south", "sud"), ("east", "est"),
    ("west", "ouest"),
    # time, numbers, colours
    ("month", "mois"), ("hour", "heure"), ("tomorrow", "demain"),
    ("yesterday", "hier"), ("spring", "printemps"), ("autumn", "automne"),
    ("Monday", "lundi"), ("Tuesday", "mardi"), ("Wednesday", "mercredi"),
    ("Thursday", "jeudi"), ("Friday", "vendredi"), ("Saturday", "samedi"),
    ("Sunday", "dimanche"), ("January", "janvier"), ("February", "février"),
    ("March", "mars"), ("April", "avril"), ("May", "mai"), ("June", "juin"),
    ("July", "juillet"), ("August", "août"), ("September", "septembre"),
    ("October", "octobre"), ("November", "novembre"), ("December", "décembre"),
    ("one", "un"), ("seven", "sept"), ("eight", "huit"), ("nine", "neuf"),
    ("eleven", "onze"), ("twelve", "douze"), ("twenty", "vingt"),
    ("hundred", "cent"), ("thousand", "mille"), ("zero", "zéro"),
    ("yellow", "jaune"), ("gray", "gris"), ("pink", "rose"),
    # adjectives (masculine singular)
    ("young", "jeune"), ("good", "bon"), ("bad", "mauvais"),
    ("beautiful", "beau"), ("short", "court"), ("high", "haut"),
    ("low", "bas"), ("strong", "fort"), ("weak", "faible"), ("fast", "rapide"),
    ("slow", "lent"), ("easy", "facile"), ("difficult", "difficile"),
    ("rich", "riche"), ("poor", "pauvre"), ("full", "plein"),
    ("empty", "vide"), ("heavy", "lourd"), ("sad", "triste"),
    ("tired", "fatigué"), ("sick", "malade"), ("dry", "sec"),
    ("clean", "propre"), ("dirty", "sale"), ("true", "vrai"),
    ("false", "faux"), ("open", "ouvert"), ("closed", "fermé"),
    ("hard", "dur"), ("deep", "profond"), ("wide", "large"),
    ("narrow", "étroit"), ("thick", "épais"), ("round", "rond"),
    ("bitter", "amer"), ("salty", "salé"), ("brave", "courageux"),
    ("proud", "fier"), ("lazy", "paresseux"), ("crazy", "fou"),
    ("alive", "vivant"), ("new", "nouveau"), ("old", "vieux"),
    # verbs (infinitive; English words as often nouns as verbs, such as
    # drink, dance, walk, play, sleep, are left out)
    ("eat", "manger"), ("speak", "parler"), ("see", "voir"),
    ("hear", "entendre"), ("write", "écrire"), ("read", "lire"),
    ("sing", "chanter"), ("swim", "nager"), ("buy", "acheter"),
    ("sell", "vendre"), ("give", "donner"), ("take", "prendre"),
    ("come", "venir"), ("go", "aller"), ("want", "vouloir"),
    ("find", "trouver"), ("think", "penser"), ("understand", "comprendre"),
    ("learn", "apprendre"), ("wait", "attendre"), ("laugh", "rire"),
    ("die", "mourir"), ("begin", "commencer"), ("finish", "finir"),
    ("steal", "voler"), ("forget", "oublier"), ("ask", "demander"),
    ("listen", "écouter"), ("say", "dire"), ("pay", "payer"),
    ("push", "pousser"), ("build", "construire"), ("choose", "choisir"),
    ("lose", "perdre"), ("win", "gagner"), ("send", "envoyer"),
    ("receive", "recevoir"), ("draw", "dessiner"), ("hide", "cacher"),
    ("drive", "conduire"),
    # adverbs and small words
    ("always", "toujours"), ("never", "jamais"), ("often", "souvent"),
    ("sometimes", "parfois"), ("here", "ici"), ("now", "maintenant"),
    ("very", "très"), ("why", "pourquoi"), ("how", "comment"),
    ("when", "quand"), ("where", "où"), ("who", "qui"), ("no", "non"),
    ("thanks", "merci"), ("hello", "bonjour"),
]


# ---------------------------------------------------------------------------
# topic_noun: common nouns naming an animal, a food (dishes, baked goods,
# fruit, vegetables, meats; no drinks), a vehicle or a piece of clothing
# (footwear and hats included). Left out: any noun that also names a thing of
# another label or is commonly read so: animals eaten under the same name
# (turkey, chicken, lamb, duck, goose, fish, salmon, crab, lobster, shrimp,
# oyster, octopus, squid, quail), animal names of car models and brands
# (jaguar, mustang, beetle, impala, falcon; puma, a shoe brand; caterpillar,
# a maker of bulldozers), mule (also a shoe), bat (also a club), kiwi (also
# a fruit), crane (also a machine), drone (also an aircraft), tank, rocket
# (also a salad leaf), boot, bonnet and hood (also parts of a car), jersey,
# boxers. The first 36 (35 of vehicles and clothing) of each are the
# project's earlier hand list, less rocket and boot. Every label gets the
# same number of nouns.
# ---------------------------------------------------------------------------

_ANIMALS = [
    "dog", "cat", "horse", "cow", "pig", "sheep", "goat", "lion", "tiger",
    "elephant", "giraffe", "zebra", "monkey", "bear", "wolf", "fox", "rabbit",
    "deer", "mouse", "squirrel", "kangaroo", "koala", "camel", "hippopotamus",
    "rhinoceros", "crocodile", "snake", "frog", "turtle", "eagle", "owl",
    "parrot", "penguin", "dolphin", "whale", "gorilla", "cheetah", "leopard",
    "panther", "bull", "donkey", "pony", "bison", "moose", "reindeer",
    "antelope", "gazelle", "llama", "alpaca", "yak", "hamster", "guinea pig",
    "rat", "hedgehog", "porcupine", "beaver", "otter", "badger", "raccoon",
    "skunk", "hare", "ferret", "lynx", "hyena", "coyote", "panda",
    "polar bear", "chimpanzee", "orangutan", "baboon", "lemur", "sloth",
    "armadillo", "anteater", "platypus", "wombat", "walrus", "seal",
    "sea lion", "shark", "jellyfish", "starfish", "seahorse", "alligator",
    "lizard", "iguana", "chameleon", "tortoise", "toad", "cobra", "sparrow",
    "robin", "crow", "raven", "swan", "flamingo", "peacock", "ostrich", "hawk",
    "vulture", "pelican", "woodpecker", "hummingbird", "seagull", "bee", "ant",
    "butterfly", "spider", "mosquito", "ladybug", "grasshopper", "scorpion",
]

_FOODS = [
    "bread", "cheese", "rice", "pasta", "pizza", "sandwich", "soup", "salad",
    "butter", "pancake", "cookie", "cake", "pie", "noodles", "hamburger",
    "sausage", "bacon", "steak", "yogurt", "cereal", "omelette", "taco",
    "burrito", "sushi", "spaghetti", "lasagna", "muffin", "donut", "waffle",
    "toast", "porridge", "chocolate", "popcorn", "biscuit", "dumpling",
    "curry", "apple", "banana", "strawberry", "cherry", "peach", "pear",
    "plum", "pineapple", "watermelon", "mango", "melon", "coconut",
    "blueberry", "raspberry", "apricot", "grapes", "carrot", "potato",
    "tomato", "onion", "garlic", "cucumber", "lettuce", "cabbage", "broccoli",
    "spinach", "cauliflower", "celery", "mushroom", "pumpkin", "avocado",
    "egg", "honey", "jam", "ketchup", "bagel", "croissant", "brownie",
    "cupcake", "pretzel", "tortilla", "nachos", "french fries", "granola",
    "meatball", "kebab", "ravioli", "risotto", "stew", "ramen", "tofu",
    "oatmeal", "custard", "pudding", "ice cream", "candy", "lollipop",
    "cheesecake", "pastry", "scone", "quiche", "crepe", "peanut butter",
    "almond", "peanut", "lentils", "eggplant", "zucchini", "asparagus", "beef",
    "pork", "ham", "salami", "pepperoni", "mashed potatoes", "meatloaf",
]

_VEHICLES = [
    "car", "bus", "truck", "bicycle", "motorcycle", "train", "tram",
    "airplane", "helicopter", "boat", "ship", "submarine", "scooter", "van",
    "taxi", "tractor", "ambulance", "jeep", "canoe", "kayak", "yacht", "ferry",
    "limousine", "minivan", "sled", "subway", "wagon", "carriage", "bulldozer",
    "forklift", "glider", "sailboat", "motorboat", "snowmobile", "hovercraft",
    "lorry", "coach", "jet", "airliner", "seaplane", "biplane", "blimp",
    "airship", "spaceship", "space shuttle", "hot air balloon", "trolleybus",
    "streetcar", "monorail", "locomotive", "freight train", "minibus",
    "school bus", "double-decker bus", "fire engine", "police car",
    "tow truck", "dump truck", "garbage truck", "pickup truck", "racing car",
    "sports car", "sedan", "hatchback", "camper van", "motor home",
    "golf cart", "go-kart", "quad bike", "moped", "motorbike", "tricycle",
    "unicycle", "rickshaw", "chariot", "stagecoach", "cart", "hearse",
    "sleigh", "toboggan", "bobsled", "snowplow", "excavator", "steamroller",
    "rowboat", "speedboat", "raft", "barge", "tugboat", "steamboat",
    "catamaran", "gondola", "dinghy", "lifeboat", "houseboat", "cruise ship",
    "ocean liner", "warship", "battleship", "aircraft carrier", "freighter",
    "oil tanker", "cargo ship", "jet ski", "fighter jet", "jumbo jet",
    "cable car", "bullet train", "zeppelin", "spacecraft", "combine harvester",
    "cement truck",
]

_CLOTHING = [
    "shirt", "trousers", "jacket", "coat", "dress", "skirt", "sweater", "hat",
    "scarf", "glove", "sock", "shoe", "sandal", "jeans", "shorts", "blouse",
    "vest", "hoodie", "necktie", "belt", "pajamas", "gown", "tuxedo",
    "cardigan", "mitten", "raincoat", "bikini", "apron", "robe", "cloak",
    "poncho", "leggings", "slipper", "swimsuit", "kimono", "t-shirt",
    "polo shirt", "blazer", "suit", "waistcoat", "overcoat", "parka", "anorak",
    "windbreaker", "trench coat", "tights", "stockings", "underwear", "bra",
    "nightgown", "bathrobe", "dressing gown", "sari", "sarong", "turtleneck",
    "tunic", "kilt", "overalls", "dungarees", "jumpsuit", "tracksuit",
    "sweatshirt", "sweatpants", "cape", "shawl", "bandana", "beanie", "beret",
    "cap", "sombrero", "fedora", "top hat", "baseball cap", "earmuffs",
    "sneakers", "loafers", "high heels", "flip-flops", "clogs", "moccasins",
    "bow tie", "cravat", "suspenders", "corset", "petticoat", "camisole",
    "leotard", "wetsuit", "swimming trunks", "toga", "uniform", "lab coat",
    "miniskirt", "tutu", "pullover", "chinos", "cargo pants", "slacks",
    "onesie", "kaftan", "veil", "turban", "headscarf", "balaclava",
    "leg warmers", "knickers", "nightshirt", "smock", "wedding dress",
    "cowboy hat", "bowler hat", "lederhosen",
]


# ---------------------------------------------------------------------------
# masculine_feminine (Paper B's L7 composition): an English masculine noun ->
# its feminine counterpart. The first 46 pairs are the project's earlier list,
# filtered by hand from the gn_glove / debiaswe lists (single words,
# unambiguous feminine forms). Added by hand under the same rule: the usual
# counterpart in present-day (American) English, one per input; left out are
# pairs whose feminine is dated or rare (poetess, authoress, manageress,
# murderess, aviatrix), whose counterpart is disputed (bachelor ->
# spinster/bachelorette, steward <- flight attendant aside), crude (dog ->
# bitch) or known only to specialists (cob -> pen, jack -> jenny), and
# -man compounds whose -woman form is rare (fireman, milkman).
# ---------------------------------------------------------------------------

_MASCULINE_FEMININE = [
    # the earlier list, unchanged
    ("actor", "actress"), ("king", "queen"), ("prince", "princess"),
    ("father", "mother"), ("brother", "sister"), ("son", "daughter"),
    ("uncle", "aunt"), ("nephew", "niece"), ("husband", "wife"),
    ("boy", "girl"), ("man", "woman"), ("gentleman", "lady"),
    ("grandfather", "grandmother"), ("grandson", "granddaughter"),
    ("emperor", "empress"), ("duke", "duchess"), ("god", "goddess"),
    ("host", "hostess"), ("hero", "heroine"), ("waiter", "waitress"),
    ("steward", "stewardess"), ("monk", "nun"), ("bull", "cow"),
    ("stallion", "mare"), ("rooster", "hen"), ("lion", "lioness"),
    ("tiger", "tigress"), ("groom", "bride"), ("widower", "widow"),
    ("sir", "madam"), ("dad", "mom"), ("count", "countess"),
    ("baron", "baroness"), ("wizard", "witch"), ("headmaster", "headmistress"),
    ("policeman", "policewoman"), ("businessman", "businesswoman"),
    ("chairman", "chairwoman"), ("spokesman", "spokeswoman"),
    ("salesman", "saleswoman"), ("schoolboy", "schoolgirl"),
    ("boyfriend", "girlfriend"), ("landlord", "landlady"),
    ("grandpa", "grandma"), ("he", "she"), ("him", "her"),
    # pronouns and family
    ("himself", "herself"), ("male", "female"), ("papa", "mama"),
    ("daddy", "mommy"), ("lad", "lass"), ("bridegroom", "bride"),
    ("fiancé", "fiancée"), ("father-in-law", "mother-in-law"),
    ("son-in-law", "daughter-in-law"), ("brother-in-law", "sister-in-law"),
    ("stepfather", "stepmother"), ("stepson", "stepdaughter"),
    ("stepbrother", "stepsister"), ("stepdad", "stepmom"),
    ("half-brother", "half-sister"), ("godfather", "godmother"),
    ("godson", "goddaughter"), ("great-grandfather", "great-grandmother"),
    ("great-grandson", "great-granddaughter"), ("great-uncle", "great-aunt"),
    ("great-nephew", "great-niece"), ("patriarch", "matriarch"),
    ("brotherhood", "sisterhood"), ("fatherhood", "motherhood"),
    ("boyhood", "girlhood"), ("manhood", "womanhood"),
    # titles and ranks
    ("lord", "lady"), ("earl", "countess"), ("viscount", "viscountess"),
    ("archduke", "archduchess"), ("sultan", "sultana"), ("tsar", "tsarina"),
    ("maharaja", "maharani"), ("heir", "heiress"), ("master", "mistress"),
    ("schoolmaster", "schoolmistress"), ("postmaster", "postmistress"),
    ("manservant", "maidservant"),
    # religion and story
    ("priest", "priestess"), ("prophet", "prophetess"), ("abbot", "abbess"),
    ("deacon", "deaconess"), ("sorcerer", "sorceress"),
    ("enchanter", "enchantress"), ("giant", "giantess"), ("ogre", "ogress"),
    ("shepherd", "shepherdess"), ("hunter", "huntress"),
    # animals
    ("ram", "ewe"), ("boar", "sow"), ("buck", "doe"), ("drake", "duck"),
    ("gander", "goose"), ("colt", "filly"), ("fox", "vixen"),
    ("peacock", "peahen"), ("billy goat", "nanny goat"),
    # -man / -boy / other compounds with a current feminine form
    ("congressman", "congresswoman"), ("sportsman", "sportswoman"),
    ("horseman", "horsewoman"), ("craftsman", "craftswoman"),
    ("fisherman", "fisherwoman"), ("postman", "postwoman"),
    ("cameraman", "camerawoman"), ("anchorman", "anchorwoman"),
    ("councilman", "councilwoman"), ("nobleman", "noblewoman"),
    ("kinsman", "kinswoman"), ("statesman", "stateswoman"),
    ("serviceman", "servicewoman"), ("foreman", "forewoman"),
    ("madman", "madwoman"), ("countryman", "countrywoman"),
    ("tribesman", "tribeswoman"), ("Englishman", "Englishwoman"),
    ("Frenchman", "Frenchwoman"), ("Irishman", "Irishwoman"),
    ("Scotsman", "Scotswoman"), ("Dutchman", "Dutchwoman"),
    ("Welshman", "Welshwoman"), ("cowboy", "cowgirl"),
    ("paperboy", "papergirl"), ("barman", "barmaid"),
    ("groomsman", "bridesmaid"), ("masseur", "masseuse"),
    ("fraternity", "sorority"), ("crown prince", "crown princess"),
]


# ---------------------------------------------------------------------------
# english_french_feminine: an English masculine noun -> the French word for
# its feminine counterpart (english_french composed with masculine_feminine).
# Every input is an input of masculine_feminine, and the output is the
# standard French word for that task's output (king -> queen -> reine).
# Left out: inputs whose French feminine is one word for both sexes
# (landlord, spokesman: propriétaire, porte-parole), needs several words
# (businessman: femme d'affaires) or has no single standard form (monk:
# religieuse/nonne, steward: hôtesse de l'air, policeman, boyfriend). The
# earlier list's inputs that are not masculine nouns (friend, cousin,
# student, singer, dancer, neighbor, lawyer, baker, farmer, teacher,
# director, cat, dog, horse) are dropped, since they are no input of
# masculine_feminine. French writes nationality nouns with a capital.
# ---------------------------------------------------------------------------

_ENGLISH_FRENCH_FEMININE = [
    # the earlier list's masculine nouns, unchanged
    ("king", "reine"), ("prince", "princesse"), ("father", "mère"),
    ("brother", "sœur"), ("son", "fille"), ("uncle", "tante"),
    ("nephew", "nièce"), ("husband", "femme"), ("grandfather", "grand-mère"),
    ("emperor", "impératrice"), ("duke", "duchesse"), ("god", "déesse"),
    ("host", "hôtesse"), ("hero", "héroïne"), ("waiter", "serveuse"),
    ("actor", "actrice"), ("lion", "lionne"), ("tiger", "tigresse"),
    ("widower", "veuve"), ("count", "comtesse"), ("baron", "baronne"),
    ("wizard", "sorcière"), ("bull", "vache"), ("rooster", "poule"),
    ("boy", "fille"), ("man", "femme"),
    # added
    ("gentleman", "dame"), ("grandson", "petite-fille"),
    ("stallion", "jument"), ("groom", "mariée"), ("bridegroom", "mariée"),
    ("sir", "madame"), ("dad", "maman"), ("papa", "maman"),
    ("grandpa", "mamie"), ("headmaster", "directrice"),
    ("chairman", "présidente"), ("salesman", "vendeuse"),
    ("schoolboy", "écolière"), ("he", "elle"), ("himself", "elle-même"),
    ("male", "femelle"), ("fiancé", "fiancée"),
    ("father-in-law", "belle-mère"), ("son-in-law", "belle-fille"),
    ("brother-in-law", "belle-sœur"), ("stepfather", "belle-mère"),
    ("half-brother", "demi-sœur"), ("godfather", "marraine"),
    ("godson", "filleule"), ("great-grandfather", "arrière-grand-mère"),
    ("great-uncle", "grand-tante"), ("great-grandson", "arrière-petite-fille"),
    ("patriarch", "matriarche"), ("fatherhood", "maternité"), ("lord", "dame"),
    ("earl", "comtesse"), ("viscount", "vicomtesse"),
    ("archduke", "archiduchesse"), ("sultan", "sultane"), ("tsar", "tsarine"),
    ("maharaja", "maharani"), ("heir", "héritière"), ("master", "maîtresse"),
    ("priest", "prêtresse"), ("prophet", "prophétesse"), ("abbot", "abbesse"),
    ("deacon", "diaconesse"), ("sorcerer", "sorcière"),
    ("enchanter", "enchanteresse"), ("giant", "géante"), ("ogre", "ogresse"),
    ("shepherd", "bergère"), ("hunter", "chasseuse"), ("ram", "brebis"),
    ("boar", "laie"), ("buck", "biche"), ("drake", "cane"), ("gander", "oie"),
    ("colt", "pouliche"), ("fox", "renarde"), ("peacock", "paonne"),
    ("billy goat", "chèvre"), ("sportsman", "sportive"),
    ("horseman", "cavalière"), ("craftsman", "artisane"),
    ("fisherman", "pêcheuse"), ("postman", "factrice"),
    ("anchorman", "présentatrice"), ("councilman", "conseillère"),
    ("madman", "folle"), ("Englishman", "Anglaise"),
    ("Frenchman", "Française"), ("Irishman", "Irlandaise"),
    ("Scotsman", "Écossaise"), ("Dutchman", "Néerlandaise"),
    ("Welshman", "Galloise"), ("masseur", "masseuse"),
    ("stepson", "belle-fille"), ("stepdad", "belle-mère"),
    ("great-nephew", "petite-nièce"), ("manservant", "servante"),
    ("schoolmaster", "institutrice"), ("daddy", "maman"),
]


# ---------------------------------------------------------------------------
# checks and builders
# ---------------------------------------------------------------------------

def _check(name: str, examples: list[dict[str, str]]) -> None:
    inputs = [ex["input"] for ex in examples]
    dup = sorted({x for x in inputs if inputs.count(x) > 1})
    if dup:
        raise ValueError(f"{name}: duplicate inputs {dup}")
    empty = [ex["input"] for ex in examples if not ex["input"].strip() or not ex["output"].strip()]
    if empty:
        raise ValueError(f"{name}: empty input or output at {empty}")
    spaced = [x for ex in examples for x in (ex["input"], ex["output"]) if x != x.strip() or "  " in x]
    if spaced:
        raise ValueError(f"{name}: stray spaces in {spaced}")


def _check_all() -> None:
    both = {a for a, _ in _ANTONYMS} & {b for _, b in _ANTONYMS}
    if both:
        raise ValueError(f"antonym: words both input and output {sorted(both)}")
    stray = sorted({a for a, _ in _ENGLISH_FRENCH_FEMININE} - {a for a, _ in _MASCULINE_FEMININE})
    if stray:
        raise ValueError(f"english_french_feminine: inputs not in masculine_feminine {stray}")
    topics = [_ANIMALS, _FOODS, _VEHICLES, _CLOTHING]
    if len({len(t) for t in topics}) != 1:
        raise ValueError(f"topic_noun: unbalanced {[len(t) for t in topics]}")
    seen = [w for t in topics for w in t]
    dup = sorted({w for w in seen if seen.count(w) > 1})
    if dup:
        raise ValueError(f"topic_noun: nouns under two labels {dup}")


def _generation(name: str, description: str, pairs, fraction: float, source: str) -> dict:
    _check_all()
    examples = _pairs(pairs)
    _check(name, examples)
    return {
        "kind": "generation",
        "description": description,
        "label_words": None,
        "test_fraction": fraction,
        "sources": [{"hand-written": source}],
        "examples": examples,
    }


def antonym() -> dict:
    return _generation(
        "antonym", "Give the opposite of a word.", _ANTONYMS, _TEST_FRACTION,
        f"{len(_ANTONYMS)} pairs of common English words with a single clear opposite, one direction "
        "per pair, no word both an input and an output; lexical opposites preferred, prefixed forms "
        "(un-, in-, im-, ir-, dis-) only where they are the standard opposite "
        "(tools/builtin_data/handwritten.py)")


def english_french() -> dict:
    return _generation(
        "english_french", "Translate an English word into French.", _ENGLISH_FRENCH, _TEST_FRACTION,
        f"{len(_ENGLISH_FRENCH)} common English words with their standard French translation: one "
        "word, lower case as French writes it, nouns without article, adjectives masculine singular, "
        "verbs in the infinitive; words spelt alike in both languages and words with two usual "
        "translations left out (tools/builtin_data/handwritten.py)")


def topic_noun() -> dict:
    _check_all()
    examples = _labelled({"animal": _ANIMALS, "food": _FOODS, "vehicle": _VEHICLES, "clothing": _CLOTHING})
    _check("topic_noun", examples)
    return {
        "kind": "classification",
        "description": "Say whether a common noun names an animal, a food, a vehicle or a piece of clothing.",
        "label_words": {"animal": "animal", "food": "food", "vehicle": "vehicle", "clothing": "clothing"},
        "test_fraction": _TEST_FRACTION,
        "sources": [{"hand-written": (
            f"{len(_ANIMALS)} common nouns per label (animal, food, vehicle, clothing), interleaved; "
            "nouns that could name a thing of two labels (turkey, chicken, lamb, duck, crab; jaguar, "
            "beetle; kiwi; rocket; boot, bonnet, hood) left out (tools/builtin_data/handwritten.py)")}],
        "examples": examples,
    }


def masculine_feminine() -> dict:
    return _generation(
        "masculine_feminine", "Give the feminine counterpart of an English masculine noun.",
        _MASCULINE_FEMININE, _GENDER_TEST_FRACTION,
        f"{len(_MASCULINE_FEMININE)} English masculine nouns with their usual feminine counterpart; "
        "the first 46 filtered by hand from the gn_glove / debiaswe lists (single words, unambiguous "
        "feminine forms), the rest added by hand under the same rule, dated, rare, crude or disputed "
        "feminine forms left out; the size is limited by the language "
        "(tools/builtin_data/handwritten.py)")


def english_french_feminine() -> dict:
    return _generation(
        "english_french_feminine",
        "Translate an English masculine noun into the French feminine counterpart "
        "(English->French composed with masculine->feminine).",
        _ENGLISH_FRENCH_FEMININE, _GENDER_TEST_FRACTION,
        f"{len(_ENGLISH_FRENCH_FEMININE)} inputs of masculine_feminine with the standard French word "
        "for their feminine counterpart; inputs whose French feminine is epicene, several words or "
        "not settled left out; the size is limited by the language "
        "(tools/builtin_data/handwritten.py)")


TASKS = {
    "antonym": antonym,
    "english_french": english_french,
    "topic_noun": topic_noun,
    "masculine_feminine": masculine_feminine,
    "english_french_feminine": english_french_feminine,
}
