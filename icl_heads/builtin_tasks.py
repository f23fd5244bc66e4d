"""Tasks that ship with the project and need no network.

Every example below is a fact written by hand for this project (word lists,
country facts, English inflections, a small sentiment lexicon); nothing is
downloaded or generated at random, so the data are identical on every machine.

Each entry of `BUILTIN_TASKS` is a dict::

    {
      "kind": "classification" | "generation",
      "description": "one sentence",
      "template": {"query": "Input: {input}\\nOutput:", "separator": "\\n\\n"},
      "label_words": {"pos": "positive", ...} | None,
      "examples": [{"input": ..., "output": ...}, ...],
    }

The answer follows the query after ONE space: ``query.format(input=x) + " " +
answer``; demonstrations are joined by ``separator``.  For classification tasks
``output`` is the raw label (a key of ``label_words``) and the answer is its
label word; for generation tasks ``output`` is the answer string itself.

Label words of each classification task have distinct first tokens after a
leading space in the tokenizers of the two default models (the Gemma GGUF and
SmolLM2-135M-Instruct); `check_builtin_tasks` checks the data without any
tokenizer.
"""
from __future__ import annotations

import copy

__all__ = ["BUILTIN_TASKS", "BUILTIN_TASK_NAMES", "builtin_task", "check_builtin_tasks"]


# Classification queries name neither the task nor the labels, so the label
# space has to be read off the demonstrations.
_CLS_QUERY = "Input: {input}\nOutput:"
# Generation queries follow the Q:/A: format of Todd et al., "Function Vectors
# in Large Language Models" (ICLR 2024).
_GEN_QUERY = "Q: {input}\nA:"


def _labelled(groups: dict[str, list[str]]) -> list[dict[str, str]]:
    """Interleave the groups (label -> inputs) so that every prefix is near balanced."""
    out: list[dict[str, str]] = []
    longest = max(len(v) for v in groups.values())
    for i in range(longest):
        for label, inputs in groups.items():
            if i < len(inputs):
                out.append({"input": inputs[i], "output": label})
    return out


def _pairs(pairs: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"input": a, "output": b} for a, b in pairs]


# ---------------------------------------------------------------------------
# Classification: sentiment of single words and short phrases
# ---------------------------------------------------------------------------

_POSITIVE_WORDS = [
    "good", "great", "excellent", "wonderful", "amazing", "fantastic", "happy",
    "joyful", "delightful", "love", "beautiful", "brilliant", "awesome",
    "pleasant", "cheerful", "superb", "outstanding", "marvelous", "lovely",
    "perfect", "kind", "friendly", "generous", "gentle", "brave", "success",
    "victory", "celebrate", "smile", "laughter", "hope", "peace", "fun",
    "exciting", "charming", "elegant", "graceful", "healthy", "calm",
    "relaxing", "enjoyable", "splendid", "terrific", "glorious", "thrilled",
    "grateful", "proud", "pleased", "satisfied", "comfortable", "delicious",
    "best", "nice", "gorgeous", "inspiring", "impressive", "admirable",
    "honest", "loyal", "helpful", "fabulous", "blessing", "paradise", "bliss",
    "triumph", "reward", "well done", "highly recommended", "a great day",
    "pure joy",
]

_NEGATIVE_WORDS = [
    "bad", "terrible", "awful", "horrible", "dreadful", "sad", "angry", "hate",
    "ugly", "disgusting", "boring", "painful", "miserable", "worst", "nasty",
    "cruel", "rude", "evil", "failure", "defeat", "disaster", "tragedy",
    "pain", "fear", "scary", "sick", "broken", "dirty", "dangerous",
    "annoying", "stupid", "lazy", "gloomy", "depressing", "hostile", "lonely",
    "guilty", "ashamed", "worried", "anxious", "upset", "furious",
    "disappointing", "unpleasant", "rotten", "filthy", "toxic", "crime",
    "hunger", "poison", "grief", "misery", "regret", "shame", "insult",
    "betrayal", "greedy", "selfish", "dishonest", "useless", "pathetic",
    "mediocre", "tedious", "harmful", "hurt", "total waste", "very poor",
    "a bad day", "badly made", "never again",
]


# ---------------------------------------------------------------------------
# Classification: country -> continent (transcontinental countries left out;
# North, Central and South America and the Caribbean are all "America")
# ---------------------------------------------------------------------------

_EUROPE = [
    "France", "Germany", "Italy", "Spain", "Portugal", "United Kingdom",
    "Ireland", "Netherlands", "Belgium", "Luxembourg", "Switzerland",
    "Austria", "Denmark", "Norway", "Sweden", "Finland", "Iceland", "Poland",
    "Czech Republic", "Slovakia", "Hungary", "Romania", "Bulgaria", "Greece",
    "Serbia", "Croatia", "Slovenia", "Bosnia and Herzegovina", "Montenegro",
    "Albania", "North Macedonia", "Moldova", "Ukraine", "Belarus",
    "Lithuania", "Latvia", "Estonia", "Malta", "Monaco", "Liechtenstein",
    "Andorra", "San Marino",
]

_ASIA = [
    "China", "Japan", "India", "Indonesia", "Pakistan", "Bangladesh",
    "Vietnam", "Thailand", "Philippines", "Malaysia", "Singapore", "Myanmar",
    "Cambodia", "Laos", "Nepal", "Bhutan", "Sri Lanka", "Maldives",
    "Mongolia", "North Korea", "South Korea", "Afghanistan", "Iran", "Iraq",
    "Syria", "Jordan", "Lebanon", "Israel", "Saudi Arabia", "Yemen", "Oman",
    "United Arab Emirates", "Qatar", "Bahrain", "Kuwait", "Uzbekistan",
    "Turkmenistan", "Tajikistan", "Kyrgyzstan", "Brunei", "East Timor",
]

_AFRICA = [
    "Nigeria", "Ethiopia", "Kenya", "Ghana", "Morocco", "Algeria", "Tunisia",
    "Libya", "Sudan", "South Africa", "Tanzania", "Uganda", "Rwanda",
    "Burundi", "Somalia", "Angola", "Zambia", "Zimbabwe", "Mozambique",
    "Madagascar", "Namibia", "Botswana", "Senegal", "Mali", "Niger", "Chad",
    "Cameroon", "Ivory Coast", "Burkina Faso", "Guinea", "Sierra Leone",
    "Liberia", "Togo", "Benin", "Gabon", "Malawi", "Lesotho", "Eritrea",
    "Mauritania", "Gambia", "South Sudan", "Djibouti",
]

_AMERICA = [
    "United States", "Canada", "Mexico", "Guatemala", "Belize", "Honduras",
    "El Salvador", "Nicaragua", "Costa Rica", "Panama", "Cuba", "Jamaica",
    "Haiti", "Dominican Republic", "Bahamas", "Barbados",
    "Trinidad and Tobago", "Grenada", "Saint Lucia", "Dominica",
    "Antigua and Barbuda", "Saint Kitts and Nevis",
    "Saint Vincent and the Grenadines", "Colombia", "Venezuela", "Ecuador",
    "Peru", "Bolivia", "Brazil", "Chile", "Argentina", "Paraguay", "Uruguay",
    "Guyana", "Suriname",
]

_CONTINENT_N = 35  # per continent: every country of the Americas is used


# ---------------------------------------------------------------------------
# Classification: topic of a common noun
# ---------------------------------------------------------------------------

_ANIMALS = [
    "dog", "cat", "horse", "cow", "pig", "sheep", "goat", "lion", "tiger",
    "elephant", "giraffe", "zebra", "monkey", "bear", "wolf", "fox", "rabbit",
    "deer", "mouse", "squirrel", "kangaroo", "koala", "camel", "hippopotamus",
    "rhinoceros", "crocodile", "snake", "frog", "turtle", "eagle", "owl",
    "parrot", "penguin", "dolphin", "whale", "gorilla",
]

_FOODS = [
    "bread", "cheese", "rice", "pasta", "pizza", "sandwich", "soup", "salad",
    "butter", "pancake", "cookie", "cake", "pie", "noodles", "hamburger",
    "sausage", "bacon", "steak", "yogurt", "cereal", "omelette", "taco",
    "burrito", "sushi", "spaghetti", "lasagna", "muffin", "donut", "waffle",
    "toast", "porridge", "chocolate", "popcorn", "biscuit", "dumpling",
    "curry",
]

_VEHICLES = [
    "car", "bus", "truck", "bicycle", "motorcycle", "train", "tram",
    "airplane", "helicopter", "boat", "ship", "submarine", "scooter", "van",
    "taxi", "tractor", "ambulance", "jeep", "canoe", "kayak", "yacht",
    "ferry", "limousine", "minivan", "sled", "rocket", "subway", "wagon",
    "carriage", "bulldozer", "forklift", "glider", "sailboat", "motorboat",
    "snowmobile", "hovercraft",
]

_CLOTHING = [
    "shirt", "trousers", "jacket", "coat", "dress", "skirt", "sweater", "hat",
    "scarf", "glove", "sock", "shoe", "boot", "sandal", "jeans", "shorts",
    "blouse", "vest", "hoodie", "necktie", "belt", "pajamas", "gown",
    "tuxedo", "cardigan", "mitten", "raincoat", "bikini", "apron", "robe",
    "cloak", "poncho", "leggings", "slipper", "swimsuit", "kimono",
]


# ---------------------------------------------------------------------------
# Classification: language of a single word (English or French; words that
# are spelt the same in both languages are left out)
# ---------------------------------------------------------------------------

_ENGLISH_WORDS = [
    "dog", "house", "water", "bread", "book", "tree", "sun", "moon", "sea",
    "fire", "red", "green", "blue", "black", "white", "big", "small", "day",
    "night", "man", "woman", "child", "friend", "school", "city", "king",
    "queen", "apple", "cheese", "wine", "milk", "fish", "bird", "horse",
    "cow", "flower", "garden", "door", "window", "hand", "head", "mouth",
    "heart", "love", "week", "morning", "evening", "summer", "winter",
    "rain", "snow", "wind", "sky", "star", "mountain", "street", "world",
    "country", "family", "father", "mother", "brother", "sister", "boy",
    "hot", "cold", "happy", "yes", "hat", "boat",
]

_FRENCH_WORDS = [
    "chien", "maison", "eau", "livre", "arbre", "soleil", "lune", "mer",
    "feu", "rouge", "vert", "bleu", "noir", "blanc", "petit", "jour", "nuit",
    "homme", "femme", "enfant", "ami", "école", "ville", "roi", "reine",
    "pomme", "fromage", "vin", "lait", "poisson", "oiseau", "cheval",
    "vache", "fleur", "jardin", "fenêtre", "tête", "bouche", "cœur",
    "semaine", "matin", "soir", "été", "hiver", "pluie", "neige", "ciel",
    "étoile", "montagne", "monde", "pays", "famille", "père", "mère",
    "frère", "sœur", "garçon", "chaud", "froid", "heureux", "deux", "trois",
    "quatre", "cinq", "oui", "chapeau", "bateau", "plage", "forêt", "sucre",
]


# ---------------------------------------------------------------------------
# Generation: country -> capital city (countries with a disputed, split or
# recently moved capital are left out)
# ---------------------------------------------------------------------------

_COUNTRY_CAPITAL = [
    ("France", "Paris"), ("Germany", "Berlin"), ("Italy", "Rome"),
    ("Spain", "Madrid"), ("Portugal", "Lisbon"), ("United Kingdom", "London"),
    ("Ireland", "Dublin"), ("Belgium", "Brussels"), ("Austria", "Vienna"),
    ("Switzerland", "Bern"), ("Denmark", "Copenhagen"), ("Norway", "Oslo"),
    ("Sweden", "Stockholm"), ("Finland", "Helsinki"), ("Iceland", "Reykjavik"),
    ("Poland", "Warsaw"), ("Czech Republic", "Prague"),
    ("Hungary", "Budapest"), ("Romania", "Bucharest"), ("Bulgaria", "Sofia"),
    ("Greece", "Athens"), ("Serbia", "Belgrade"), ("Croatia", "Zagreb"),
    ("Slovakia", "Bratislava"), ("Slovenia", "Ljubljana"), ("Ukraine", "Kyiv"),
    ("Russia", "Moscow"), ("Turkey", "Ankara"), ("Lithuania", "Vilnius"),
    ("Latvia", "Riga"), ("Estonia", "Tallinn"), ("Albania", "Tirana"),
    ("Belarus", "Minsk"), ("China", "Beijing"), ("Japan", "Tokyo"),
    ("South Korea", "Seoul"), ("North Korea", "Pyongyang"),
    ("India", "New Delhi"), ("Pakistan", "Islamabad"), ("Bangladesh", "Dhaka"),
    ("Nepal", "Kathmandu"), ("Thailand", "Bangkok"), ("Vietnam", "Hanoi"),
    ("Philippines", "Manila"), ("Malaysia", "Kuala Lumpur"),
    ("Mongolia", "Ulaanbaatar"), ("Afghanistan", "Kabul"), ("Iran", "Tehran"),
    ("Iraq", "Baghdad"), ("Syria", "Damascus"), ("Lebanon", "Beirut"),
    ("Jordan", "Amman"), ("Saudi Arabia", "Riyadh"), ("Qatar", "Doha"),
    ("Oman", "Muscat"), ("Cambodia", "Phnom Penh"), ("Laos", "Vientiane"),
    ("Kazakhstan", "Astana"), ("Uzbekistan", "Tashkent"), ("Egypt", "Cairo"),
    ("Kenya", "Nairobi"), ("Ethiopia", "Addis Ababa"), ("Nigeria", "Abuja"),
    ("Ghana", "Accra"), ("Morocco", "Rabat"), ("Algeria", "Algiers"),
    ("Tunisia", "Tunis"), ("Libya", "Tripoli"), ("Sudan", "Khartoum"),
    ("Senegal", "Dakar"), ("Uganda", "Kampala"), ("Zimbabwe", "Harare"),
    ("Zambia", "Lusaka"), ("Angola", "Luanda"), ("Mali", "Bamako"),
    ("Somalia", "Mogadishu"), ("Rwanda", "Kigali"),
    ("Madagascar", "Antananarivo"), ("Mozambique", "Maputo"),
    ("Namibia", "Windhoek"), ("Botswana", "Gaborone"),
    ("United States", "Washington"), ("Canada", "Ottawa"),
    ("Mexico", "Mexico City"), ("Cuba", "Havana"), ("Jamaica", "Kingston"),
    ("Colombia", "Bogota"), ("Venezuela", "Caracas"), ("Peru", "Lima"),
    ("Ecuador", "Quito"), ("Chile", "Santiago"), ("Argentina", "Buenos Aires"),
    ("Brazil", "Brasilia"), ("Uruguay", "Montevideo"),
    ("Paraguay", "Asuncion"), ("Australia", "Canberra"),
    ("New Zealand", "Wellington"), ("Fiji", "Suva"),
]


# ---------------------------------------------------------------------------
# Generation: country -> currency (name of the unit, lower case)
# ---------------------------------------------------------------------------

_COUNTRY_CURRENCY = [
    ("Japan", "yen"), ("China", "yuan"), ("India", "rupee"),
    ("United Kingdom", "pound"), ("United States", "dollar"),
    ("Canada", "dollar"), ("Australia", "dollar"), ("New Zealand", "dollar"),
    ("Singapore", "dollar"), ("Jamaica", "dollar"), ("Mexico", "peso"),
    ("Argentina", "peso"), ("Chile", "peso"), ("Colombia", "peso"),
    ("Cuba", "peso"), ("Philippines", "peso"), ("Uruguay", "peso"),
    ("Brazil", "real"), ("Russia", "ruble"), ("Switzerland", "franc"),
    ("Sweden", "krona"), ("Norway", "krone"), ("Denmark", "krone"),
    ("Iceland", "krona"), ("Poland", "zloty"), ("Czech Republic", "koruna"),
    ("Hungary", "forint"), ("Romania", "leu"), ("Moldova", "leu"),
    ("Turkey", "lira"), ("South Korea", "won"), ("North Korea", "won"),
    ("Thailand", "baht"), ("Vietnam", "dong"), ("Indonesia", "rupiah"),
    ("Malaysia", "ringgit"), ("Pakistan", "rupee"), ("Nepal", "rupee"),
    ("Sri Lanka", "rupee"), ("Bangladesh", "taka"), ("Iran", "rial"),
    ("Saudi Arabia", "riyal"), ("Qatar", "riyal"), ("Israel", "shekel"),
    ("Egypt", "pound"), ("South Africa", "rand"), ("Nigeria", "naira"),
    ("Kenya", "shilling"), ("Uganda", "shilling"), ("Tanzania", "shilling"),
    ("Ghana", "cedi"), ("Ukraine", "hryvnia"), ("Peru", "sol"),
    ("Germany", "euro"), ("France", "euro"), ("Italy", "euro"),
    ("Spain", "euro"), ("Portugal", "euro"), ("Ireland", "euro"),
    ("Netherlands", "euro"), ("Greece", "euro"), ("Zambia", "kwacha"),
    ("Malawi", "kwacha"), ("Botswana", "pula"), ("Ethiopia", "birr"),
    ("Morocco", "dirham"), ("United Arab Emirates", "dirham"),
    ("Kuwait", "dinar"), ("Iraq", "dinar"), ("Jordan", "dinar"),
    ("Serbia", "dinar"), ("Algeria", "dinar"), ("Tunisia", "dinar"),
    ("Mongolia", "tugrik"), ("Kazakhstan", "tenge"), ("Georgia", "lari"),
    ("Armenia", "dram"), ("Guatemala", "quetzal"), ("Paraguay", "guarani"),
    ("Bolivia", "boliviano"), ("Laos", "kip"), ("Cambodia", "riel"),
    ("Myanmar", "kyat"), ("Afghanistan", "afghani"),
]


# ---------------------------------------------------------------------------
# Generation: word lists for the letter-case tasks
# ---------------------------------------------------------------------------

_CAPITALIZE_WORDS = [
    "apple", "table", "river", "garden", "window", "summer", "music",
    "doctor", "flower", "market", "planet", "forest", "bottle", "castle",
    "candle", "pencil", "orange", "silver", "mountain", "island", "kitchen",
    "rabbit", "teacher", "winter", "dragon", "horse", "water", "paper",
    "stone", "cloud", "bridge", "engine", "guitar", "jungle", "library",
    "museum", "ocean", "pocket", "rocket", "tiger", "violin", "wallet",
    "yellow", "zebra", "anchor", "basket", "button", "cherry", "desert",
    "eagle", "finger", "ginger", "hammer", "insect", "jacket", "kettle",
    "lemon", "mirror", "needle", "pillow", "queen", "saddle", "tunnel",
    "umbrella", "valley", "whistle", "school", "family", "dinner", "letter",
]

_LOWERCASE_WORDS = [
    "Chair", "House", "Light", "Grass", "Plate", "Sheep", "Tower", "Field",
    "Shirt", "Storm", "Beach", "Smile", "Heart", "North", "Dance", "Green",
    "Sugar", "Wheel", "Mouse", "Brush", "Clock", "Flame", "Glass", "Honey",
    "Juice", "Knife", "Money", "Night", "Olive", "Piano", "Radio", "Snake",
    "Toast", "Uncle", "Voice", "Whale", "Youth", "Banana", "Carpet", "Garlic",
    "Hockey", "Meadow", "Napkin", "Office", "Pepper", "Ribbon", "Temple",
    "Velvet", "Wizard", "Butter", "Circle", "Parrot", "Blanket", "Feather",
    "Helmet", "Puzzle", "Stream", "Thunder", "Monkey", "Notebook", "Ladder",
    "Spider", "Harbor", "Cotton", "Village", "Question", "Bread", "Train",
    "Cheese", "Morning",
]


# ---------------------------------------------------------------------------
# Generation: antonyms (one direction per pair, pairs with a single clear
# opposite)
# ---------------------------------------------------------------------------

_ANTONYMS = [
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
    ("include", "exclude"), ("maximum", "minimum"),
    ("positive", "negative"), ("major", "minor"), ("import", "export"),
    ("visible", "invisible"), ("possible", "impossible"),
    ("legal", "illegal"), ("polite", "rude"), ("heavy", "light"),
    ("deep", "shallow"), ("smooth", "rough"), ("victory", "defeat"),
    ("war", "peace"), ("entrance", "exit"), ("remember", "forget"),
    ("asleep", "awake"), ("give", "take"), ("ancient", "modern"),
    ("plus", "minus"), ("sunrise", "sunset"), ("winter", "summer"),
    ("float", "sink"), ("whisper", "shout"), ("borrow", "lend"),
    ("husband", "wife"), ("king", "queen"), ("boy", "girl"),
    ("brother", "sister"),
]


# ---------------------------------------------------------------------------
# Generation: verb -> simple past (irregular forms written out)
# ---------------------------------------------------------------------------

_PRESENT_PAST = [
    ("go", "went"), ("eat", "ate"), ("see", "saw"), ("take", "took"),
    ("make", "made"), ("come", "came"), ("give", "gave"), ("know", "knew"),
    ("think", "thought"), ("buy", "bought"), ("bring", "brought"),
    ("teach", "taught"), ("catch", "caught"), ("fight", "fought"),
    ("run", "ran"), ("swim", "swam"), ("sing", "sang"), ("drink", "drank"),
    ("begin", "began"), ("ring", "rang"), ("write", "wrote"),
    ("drive", "drove"), ("ride", "rode"), ("speak", "spoke"),
    ("break", "broke"), ("choose", "chose"), ("freeze", "froze"),
    ("wake", "woke"), ("steal", "stole"), ("forget", "forgot"),
    ("get", "got"), ("sit", "sat"), ("stand", "stood"),
    ("understand", "understood"), ("fly", "flew"), ("grow", "grew"),
    ("throw", "threw"), ("draw", "drew"), ("blow", "blew"), ("fall", "fell"),
    ("feel", "felt"), ("keep", "kept"), ("sleep", "slept"), ("leave", "left"),
    ("meet", "met"), ("lose", "lost"), ("send", "sent"), ("spend", "spent"),
    ("build", "built"), ("tell", "told"), ("sell", "sold"), ("hold", "held"),
    ("find", "found"), ("say", "said"), ("pay", "paid"), ("hear", "heard"),
    ("win", "won"), ("bite", "bit"), ("feed", "fed"), ("shake", "shook"),
    ("wear", "wore"), ("dig", "dug"), ("cut", "cut"), ("put", "put"),
    ("walk", "walked"), ("play", "played"), ("jump", "jumped"),
    ("talk", "talked"), ("cook", "cooked"), ("open", "opened"),
    ("dance", "danced"), ("smile", "smiled"), ("carry", "carried"),
    ("study", "studied"), ("try", "tried"), ("stop", "stopped"),
    ("plan", "planned"), ("live", "lived"), ("want", "wanted"),
    ("help", "helped"), ("ask", "asked"), ("call", "called"),
    ("look", "looked"), ("wash", "washed"), ("paint", "painted"),
    ("climb", "climbed"),
]


# ---------------------------------------------------------------------------
# Generation: noun -> plural (irregular forms written out)
# ---------------------------------------------------------------------------

_SINGULAR_PLURAL = [
    ("man", "men"), ("woman", "women"), ("child", "children"),
    ("tooth", "teeth"), ("foot", "feet"), ("mouse", "mice"),
    ("goose", "geese"), ("person", "people"), ("ox", "oxen"),
    ("sheep", "sheep"), ("deer", "deer"), ("knife", "knives"),
    ("wife", "wives"), ("leaf", "leaves"), ("life", "lives"),
    ("wolf", "wolves"), ("half", "halves"), ("shelf", "shelves"),
    ("loaf", "loaves"), ("thief", "thieves"), ("calf", "calves"),
    ("city", "cities"), ("baby", "babies"), ("party", "parties"),
    ("country", "countries"), ("story", "stories"), ("lady", "ladies"),
    ("box", "boxes"), ("bus", "buses"), ("church", "churches"),
    ("glass", "glasses"), ("dish", "dishes"), ("watch", "watches"),
    ("fox", "foxes"), ("kiss", "kisses"), ("tomato", "tomatoes"),
    ("potato", "potatoes"), ("hero", "heroes"), ("echo", "echoes"),
    ("crisis", "crises"), ("analysis", "analyses"), ("thesis", "theses"),
    ("phenomenon", "phenomena"), ("criterion", "criteria"), ("cat", "cats"),
    ("dog", "dogs"), ("book", "books"), ("car", "cars"), ("tree", "trees"),
    ("house", "houses"), ("apple", "apples"), ("bird", "birds"),
    ("chair", "chairs"), ("table", "tables"), ("girl", "girls"),
    ("boy", "boys"), ("key", "keys"), ("day", "days"), ("toy", "toys"),
    ("pen", "pens"), ("door", "doors"), ("cup", "cups"), ("hat", "hats"),
    ("river", "rivers"), ("star", "stars"), ("flower", "flowers"),
    ("horse", "horses"), ("window", "windows"), ("roof", "roofs"),
    ("chief", "chiefs"), ("piano", "pianos"), ("photo", "photos"),
    ("zoo", "zoos"),
]


# ---------------------------------------------------------------------------
# Generation: English -> French (single words, masculine singular for
# adjectives)
# ---------------------------------------------------------------------------

_ENGLISH_FRENCH = [
    ("dog", "chien"), ("cat", "chat"), ("house", "maison"), ("water", "eau"),
    ("bread", "pain"), ("book", "livre"), ("car", "voiture"),
    ("tree", "arbre"), ("sun", "soleil"), ("moon", "lune"), ("sea", "mer"),
    ("fire", "feu"), ("red", "rouge"), ("green", "vert"), ("blue", "bleu"),
    ("black", "noir"), ("white", "blanc"), ("big", "grand"),
    ("small", "petit"), ("day", "jour"), ("night", "nuit"), ("man", "homme"),
    ("woman", "femme"), ("child", "enfant"), ("friend", "ami"),
    ("school", "école"), ("city", "ville"), ("king", "roi"),
    ("queen", "reine"), ("apple", "pomme"), ("cheese", "fromage"),
    ("wine", "vin"), ("milk", "lait"), ("fish", "poisson"),
    ("bird", "oiseau"), ("horse", "cheval"), ("cow", "vache"),
    ("flower", "fleur"), ("garden", "jardin"), ("door", "porte"),
    ("window", "fenêtre"), ("chair", "chaise"), ("hand", "main"),
    ("head", "tête"), ("mouth", "bouche"), ("heart", "cœur"),
    ("love", "amour"), ("week", "semaine"), ("morning", "matin"),
    ("evening", "soir"), ("summer", "été"), ("winter", "hiver"),
    ("rain", "pluie"), ("snow", "neige"), ("wind", "vent"), ("sky", "ciel"),
    ("star", "étoile"), ("mountain", "montagne"), ("street", "rue"),
    ("world", "monde"), ("country", "pays"), ("family", "famille"),
    ("father", "père"), ("mother", "mère"), ("brother", "frère"),
    ("sister", "sœur"), ("boy", "garçon"), ("hot", "chaud"),
    ("cold", "froid"), ("happy", "heureux"), ("two", "deux"),
    ("three", "trois"), ("four", "quatre"), ("five", "cinq"),
    ("ten", "dix"), ("yes", "oui"), ("hat", "chapeau"), ("boat", "bateau"),
    ("beach", "plage"), ("forest", "forêt"), ("sugar", "sucre"),
    ("salt", "sel"), ("butter", "beurre"), ("meat", "viande"),
    ("chicken", "poulet"), ("kitchen", "cuisine"), ("church", "église"),
]


BUILTIN_TASKS: dict[str, dict] = {
    # ----------------------------------------------------------------- classification
    "sentiment_lexicon": {
        "kind": "classification",
        "description": "Classify a single word or short phrase as positive or negative in sentiment.",
        "template": {"query": _CLS_QUERY, "separator": "\n\n"},
        "label_words": {"pos": "positive", "neg": "negative"},
        "examples": _labelled({"pos": _POSITIVE_WORDS, "neg": _NEGATIVE_WORDS}),
    },
    "country_continent": {
        "kind": "classification",
        "description": "Name the continent of a country (all of the Americas count as America).",
        "template": {"query": _CLS_QUERY, "separator": "\n\n"},
        "label_words": {"europe": "Europe", "asia": "Asia", "africa": "Africa", "america": "America"},
        "examples": _labelled({
            "europe": _EUROPE[:_CONTINENT_N],
            "asia": _ASIA[:_CONTINENT_N],
            "africa": _AFRICA[:_CONTINENT_N],
            "america": _AMERICA[:_CONTINENT_N],
        }),
    },
    "topic_noun": {
        "kind": "classification",
        "description": "Say whether a common noun names an animal, a food, a vehicle or a piece of clothing.",
        "template": {"query": _CLS_QUERY, "separator": "\n\n"},
        "label_words": {"animal": "animal", "food": "food", "vehicle": "vehicle", "clothing": "clothing"},
        "examples": _labelled({
            "animal": _ANIMALS, "food": _FOODS, "vehicle": _VEHICLES, "clothing": _CLOTHING,
        }),
    },
    "word_language": {
        "kind": "classification",
        "description": "Say whether a word is English or French.",
        "template": {"query": _CLS_QUERY, "separator": "\n\n"},
        "label_words": {"english": "English", "french": "French"},
        "examples": _labelled({"english": _ENGLISH_WORDS, "french": _FRENCH_WORDS}),
    },
    # ----------------------------------------------------------------- generation
    "country_capital": {
        "kind": "generation",
        "description": "Give the capital city of a country.",
        "template": {"query": _GEN_QUERY, "separator": "\n\n"},
        "label_words": None,
        "examples": _pairs(_COUNTRY_CAPITAL),
    },
    "country_currency": {
        "kind": "generation",
        "description": "Give the name of the currency unit of a country.",
        "template": {"query": _GEN_QUERY, "separator": "\n\n"},
        "label_words": None,
        "examples": _pairs(_COUNTRY_CURRENCY),
    },
    "capitalize": {
        "kind": "generation",
        "description": "Write a lower-case word with its first letter capitalised.",
        "template": {"query": _GEN_QUERY, "separator": "\n\n"},
        "label_words": None,
        "examples": _pairs([(w, w.capitalize()) for w in _CAPITALIZE_WORDS]),
    },
    "lowercase": {
        "kind": "generation",
        "description": "Write a capitalised word in lower case.",
        "template": {"query": _GEN_QUERY, "separator": "\n\n"},
        "label_words": None,
        "examples": _pairs([(w, w.lower()) for w in _LOWERCASE_WORDS]),
    },
    "antonym": {
        "kind": "generation",
        "description": "Give the opposite of a word.",
        "template": {"query": _GEN_QUERY, "separator": "\n\n"},
        "label_words": None,
        "examples": _pairs(_ANTONYMS),
    },
    "present_past": {
        "kind": "generation",
        "description": "Give the simple past tense of an English verb.",
        "template": {"query": _GEN_QUERY, "separator": "\n\n"},
        "label_words": None,
        "examples": _pairs(_PRESENT_PAST),
    },
    "singular_plural": {
        "kind": "generation",
        "description": "Give the plural of an English noun.",
        "template": {"query": _GEN_QUERY, "separator": "\n\n"},
        "label_words": None,
        "examples": _pairs(_SINGULAR_PLURAL),
    },
    "english_french": {
        "kind": "generation",
        "description": "Translate an English word into French.",
        "template": {"query": _GEN_QUERY, "separator": "\n\n"},
        "label_words": None,
        "examples": _pairs(_ENGLISH_FRENCH),
    },
}

# ---------------------------------------------------------------------------
# Paper B (LTV) composition, L7: masculine -> feminine (English), and the composed
# task English masculine -> French feminine. Pairs filtered by hand from the
# gn_glove / debiaswe lists: single words, unambiguous feminine forms.
# ---------------------------------------------------------------------------
_MASCULINE_FEMININE = [
    ("actor", "actress"), ("king", "queen"), ("prince", "princess"), ("father", "mother"),
    ("brother", "sister"), ("son", "daughter"), ("uncle", "aunt"), ("nephew", "niece"),
    ("husband", "wife"), ("boy", "girl"), ("man", "woman"), ("gentleman", "lady"),
    ("grandfather", "grandmother"), ("grandson", "granddaughter"), ("emperor", "empress"),
    ("duke", "duchess"), ("god", "goddess"), ("host", "hostess"), ("hero", "heroine"),
    ("waiter", "waitress"), ("steward", "stewardess"), ("monk", "nun"), ("bull", "cow"),
    ("stallion", "mare"), ("rooster", "hen"), ("lion", "lioness"), ("tiger", "tigress"),
    ("groom", "bride"), ("widower", "widow"), ("sir", "madam"), ("dad", "mom"),
    ("count", "countess"), ("baron", "baroness"), ("wizard", "witch"),
    ("headmaster", "headmistress"), ("policeman", "policewoman"), ("businessman", "businesswoman"),
    ("chairman", "chairwoman"), ("spokesman", "spokeswoman"), ("salesman", "saleswoman"),
    ("schoolboy", "schoolgirl"), ("boyfriend", "girlfriend"), ("landlord", "landlady"),
    ("grandpa", "grandma"), ("he", "she"), ("him", "her"),
]

_ENGLISH_FRENCH_FEMININE = [
    ("king", "reine"), ("prince", "princesse"), ("father", "mère"), ("brother", "sœur"),
    ("son", "fille"), ("uncle", "tante"), ("nephew", "nièce"), ("husband", "femme"),
    ("grandfather", "grand-mère"), ("emperor", "impératrice"), ("duke", "duchesse"),
    ("god", "déesse"), ("host", "hôtesse"), ("hero", "héroïne"), ("waiter", "serveuse"),
    ("actor", "actrice"), ("lion", "lionne"), ("tiger", "tigresse"), ("widower", "veuve"),
    ("count", "comtesse"), ("baron", "baronne"), ("wizard", "sorcière"), ("friend", "amie"),
    ("cousin", "cousine"), ("student", "étudiante"), ("singer", "chanteuse"), ("dancer", "danseuse"),
    ("neighbor", "voisine"), ("lawyer", "avocate"), ("baker", "boulangère"), ("farmer", "fermière"),
    ("cat", "chatte"), ("dog", "chienne"), ("bull", "vache"), ("rooster", "poule"),
    ("boy", "fille"), ("man", "femme"), ("horse", "jument"), ("teacher", "enseignante"), ("director", "directrice"),
]

BUILTIN_TASKS["masculine_feminine"] = {
    "kind": "generation",
    "description": "Give the feminine counterpart of an English masculine noun.",
    "template": {"query": _GEN_QUERY, "separator": "\n\n"},
    "label_words": None,
    "examples": _pairs(_MASCULINE_FEMININE),
}
BUILTIN_TASKS["english_french_feminine"] = {
    "kind": "generation",
    "description": "Translate an English masculine noun into the French feminine counterpart (English->French composed with masculine->feminine).",
    "template": {"query": _GEN_QUERY, "separator": "\n\n"},
    "label_words": None,
    "examples": _pairs(_ENGLISH_FRENCH_FEMININE),
}

BUILTIN_TASK_NAMES: list[str] = sorted(BUILTIN_TASKS)


def builtin_task(name: str) -> dict:
    """A deep copy of the built-in task `name`; KeyError naming the known tasks if unknown."""
    if name not in BUILTIN_TASKS:
        raise KeyError(
            f"unknown built-in task {name!r}; known built-in tasks: {', '.join(BUILTIN_TASK_NAMES)}"
        )
    return copy.deepcopy(BUILTIN_TASKS[name])


def check_builtin_tasks(tasks: dict[str, dict] | None = None) -> list[str]:
    """Problems with the task data (empty list when all is well): duplicate inputs,
    unknown labels, unbalanced labels, missing fields, a query without {input}."""
    tasks = BUILTIN_TASKS if tasks is None else tasks
    problems: list[str] = []
    for name, task in tasks.items():
        for key in ("kind", "description", "template", "label_words", "examples"):
            if key not in task:
                problems.append(f"{name}: missing {key!r}")
        if "{input}" not in task.get("template", {}).get("query", ""):
            problems.append(f"{name}: template query has no {{input}}")
        inputs = [ex["input"] for ex in task.get("examples", [])]
        dup = sorted({x for x in inputs if inputs.count(x) > 1})
        if dup:
            problems.append(f"{name}: duplicate inputs {dup}")
        if any(not str(ex["output"]).strip() for ex in task.get("examples", [])):
            problems.append(f"{name}: empty output")
        if task.get("kind") == "classification":
            labels = task.get("label_words") or {}
            counts = {lab: 0 for lab in labels}
            for ex in task["examples"]:
                if ex["output"] not in labels:
                    problems.append(f"{name}: label {ex['output']!r} not in label_words")
                else:
                    counts[ex["output"]] += 1
            if counts and max(counts.values()) - min(counts.values()) > 1:
                problems.append(f"{name}: unbalanced labels {counts}")
            if len(set(labels.values())) != len(labels):
                problems.append(f"{name}: repeated label words")
        elif task.get("kind") == "generation":
            if task.get("label_words") is not None:
                problems.append(f"{name}: generation task with label_words")
        else:
            problems.append(f"{name}: kind must be 'classification' or 'generation'")
    return problems
