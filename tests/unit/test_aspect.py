"""The rule's readings in wordings of my own: changes under way and scoped exceptions
(atma/aspect.py), supersession said with other verbs, and their near misses.

Every pair here was written for this test (own people, habits and phrasings), not taken from the
audit generator's templates. Four batches: 53 pairs written before the aspect readings were
built and used to build them; 40 written after as a check (then looked at; three readings were
added for them); 38 of supersession in other verbs ("handed in my badge", "lowered my dose",
"quit smoking"), written to find the rule's gaps; and a mixed batch of 40 written after the rule
was frozen for it (the rule of 91d3911 read 24 right, this one 29 on the first run; then looked
at and used, so it is own data now, not a held-out figure). The topic score beside each pair is
the packaged MiniLM cosine of the two texts, as the rule Judge gets it in the loop. Pairs the
rule still misses are strict xfails, so the limits stay visible: a change said through its
circumstances ("Half my boxes are already at the new place"), a change at a low topic score with
nothing shared, an exception with no shared word or family ("champagne at weddings" / "I don't
drink alcohol"), a situation said with "when" or "but" alone ("When I have a cold, it's ginger tea
every time": LoCoMo's talk is full of those, and reading them scoped 67 of its same-speaker pairs
that state nothing of the kind), someone else acting on the speaker's state ("They scrapped the
7:15"), words of one family the rule's tables lack ("joined a different parish" / "church").
"""

from __future__ import annotations

import doctest

import pytest

import atma.aspect
from atma.aspect import scope_cue, under_way
from atma.judge import fallback_verdict
from atma.protocols import GateScore
from atma.records import Record

MISS = pytest.mark.xfail(strict=True, reason="wording the rule does not read yet")

PAIRS = [
    ('Ines', 'I eat meat most days.', "I've been cutting back on meat for a few weeks now, aiming to be fully vegetarian by spring.", 'transition', 0.58),
    pytest.param('Jon', 'I live in Denver.', 'Half my boxes are already at the new place in Austin, the rest follow next week.', 'transition', 0.27, marks=MISS),  # read as none
    ('Kit', 'I play the violin in a quartet.', "I'm starting to switch from violin to viola, still getting used to the alto clef.", 'transition', 0.53),
    ('Lou', 'I drink four coffees a day.', 'Down to two coffees a day so far, working towards none.', 'transition', 0.73),
    ('Mo', 'I use Windows on my home computer.', "I'm in the middle of migrating my home computer from Windows to Linux.", 'transition', 0.61),
    ('Nia', 'We speak English at home.', "We're slowly switching to Spanish at home for the kids.", 'transition', 0.56),
    ('Oz', 'My go-to drink is lager.', "Lately I've been drifting from lager towards stouts, more and more each week.", 'transition', 0.64),
    ('Pia', 'I commute by car.', "I've started biking to work two days a week, with the goal of ditching the car for my commute entirely.", 'transition', 0.65),
    ('Quin', 'I teach full-time at the high school.', "I'm moving to part-time teaching over the next term, cutting one day at a time.", 'transition', 0.66),
    ('Rae', 'Our team tracks tickets in Jira.', "We're in the process of moving our tickets from Jira to Linear.", 'transition', 0.7),
    ('Sol', 'I smoke about a pack a day.', "I'm on nicotine patches now and down to five cigarettes a day, getting there.", 'transition', 0.64),
    pytest.param('Tam', 'I live with my parents.', 'Been moving my stuff into my own flat bit by bit this month.', 'transition', 0.15, marks=MISS),  # read as none
    ('Uma', 'I study law at Leeds.', "I'm partway through transferring from law to economics, the paperwork goes through in June.", 'transition', 0.43),
    ('Vic', 'I bank with Barclays.', "I've begun moving my accounts from Barclays over to Monzo, about halfway done.", 'transition', 0.62),
    pytest.param('Wes', "I'm vegan.", "I've started reintroducing fish, one meal a week for now, and plan to add more.", 'transition', 0.28, marks=MISS),  # read as none
    ('Xan', "I'm training for a marathon.", "I'm winding down my marathon training and shifting my focus to triathlon over the next few months.", 'transition', 0.76),
    ('Yul', 'I work nights at the hospital.', "I'm in the middle of a changeover from nights to day shifts, two more weeks to go.", 'transition', 0.56),
    ('Zed', 'I write my novels by hand.', "I'm learning to draft on a laptop instead of by hand, it's slow going but I'm getting used to it.", 'transition', 0.44),
    ('Ada', 'I run 20 km a week.', "I'm building my running back up after the injury, currently at 8 km a week and adding a bit each week.", 'transition', 0.58),
    pytest.param('Bo', 'My kids go to Hillside Primary.', 'The kids are switching schools from Hillside to Oakfield, the older one moves first, the younger one after Easter.', 'transition', 0.57, marks=MISS),  # read as supersede
    ('Cy', "I'm a sales rep at Acme.", "I'm handing over my sales accounts at Acme this month before I start in marketing.", 'transition', 0.79),
    ('Di', 'I cook every evening.', "I'm gradually handing the cooking over to my partner, I only cook twice a week now.", 'transition', 0.69),
    ('Ed', "I'm learning French.", "I've been phasing French out of my study time in favour of Japanese.", 'transition', 0.58),
    ('Flo', 'I sleep about 6 hours a night.', "I'm shifting my bedtime earlier, at about 7 hours now and aiming for 8.", 'transition', 0.47),
    ('Gil', 'My hair is long.', "I've been growing my hair out short... I mean cutting it shorter in stages, it's at shoulder length now.", 'transition', 0.65),
    ('Hana', "I'm vegetarian.", "The one exception is my grandma's fish stew at Christmas.", 'scoped_exception', 0.28),
    ('Ivo', 'I go to bed around 11.', 'On Fridays I stay up till 1 or so.', 'scoped_exception', 0.53),
    pytest.param('Jas', 'I work from home.', 'Tuesdays and Thursdays I go into the office.', 'scoped_exception', 0.35, marks=MISS),  # read as none
    pytest.param('Kai', "I don't drink alcohol.", "I'll have a glass of champagne at weddings, and that's it.", 'scoped_exception', 0.36, marks=MISS),  # read as none
    ('Lin', 'I cycle to work.', 'When the roads are icy I take the tram instead of cycling.', 'scoped_exception', 0.4),
    ('Max', 'I run in the mornings.', 'In the heat of July I move my runs to the evening.', 'scoped_exception', 0.61),
    ('Ned', "I'm gluten-free.", "I make an exception for my mum's birthday cake.", 'scoped_exception', 0.15),
    ('Ola', 'I wake up at 6.', 'Weekends are for sleeping in until 9.', 'scoped_exception', 0.47),
    ('Pat', 'I take the bus to work.', "If I'm running late I grab a taxi instead.", 'scoped_exception', 0.47),
    ('Rio', 'I speak English at work.', "With my Madrid colleagues it's Spanish, though.", 'scoped_exception', 0.36),
    pytest.param('Sam', 'I drink my coffee black.', "After dinner I'll take it with a splash of cream.", 'scoped_exception', 0.29, marks=MISS),  # read as none
    pytest.param('Tia', 'I swim three times a week.', 'During exam season it drops to once a week.', 'scoped_exception', 0.27, marks=MISS),  # read as none
    ('Udo', 'I never eat sugar.', 'Birthdays are my cheat days, cake included.', 'scoped_exception', 0.15),
    ('Val', "I'm a morning person.", "Saturdays excepted - that's my lie-in day.", 'scoped_exception', 0.26),
    pytest.param('Wyn', 'I use my phone for everything.', 'For long emails I still need the laptop.', 'scoped_exception', 0.34, marks=MISS),  # read as none
    pytest.param('Xia', 'My favourite tea is green tea.', "When I have a cold, it's ginger tea every time.", 'scoped_exception', 0.62, marks=MISS),  # read as none
    ('Yan', 'I walk the dog at 7.', "On school days it's more like 6:30.", 'scoped_exception', 0.39),
    pytest.param('Zoe', "I drive to my parents' place.", 'For the winter visits we take the train though.', 'scoped_exception', 0.3, marks=MISS),  # read as none
    ('Ines', 'I eat meat most days.', 'My sister is slowly going vegetarian.', 'none', 0.47),
    ('Jon', 'I live in Denver.', 'Thinking about maybe moving to Austin one day.', 'none', 0.25),
    ('Kit', 'I play the violin in a quartet.', 'Our quartet is slowly learning a new Haydn piece.', 'none', 0.41),
    ('Lou', 'I drink four coffees a day.', 'Had my four coffees today, as always.', 'none', 0.78),
    ('Mo', 'I use Windows on my home computer.', 'My brother is halfway through moving his laptop to Linux.', 'none', 0.33),
    ('Hana', "I'm vegetarian.", 'My brother makes an exception for bacon, funny guy.', 'none', 0.42),
    ('Jas', 'I work from home.', 'Working from home again today, love it.', 'none', 0.59),
    ('Max', 'I run in the mornings.', 'Did my morning run by the river, beautiful sunrise.', 'none', 0.43),
    ('Sol', 'I smoke about a pack a day.', 'Should I try to quit smoking? Everyone says so.', 'none', 0.54),
    ('Quin', 'I teach full-time at the high school.', 'Grading essays all weekend, the usual.', 'none', 0.22),
    pytest.param('Aiko', 'I take the train to the office.', "I'm gradually switching over to cycling in, three days out of five so far.", 'transition', 0.21, marks=MISS),  # read as none
    ('Bram', 'I eat dinner at 9.', "We're shifting dinner earlier bit by bit, it's at 8 now and we want 7.", 'transition', 0.52),
    ('Cleo', 'I work at the bakery on Elm Street.', "I'm working out my notice at the bakery, two more weeks to go before the new job.", 'transition', 0.6),
    pytest.param('Dov', 'My phone is an iPhone.', "I'm switching to an Android, still moving my photos across.", 'transition', 0.39, marks=MISS),  # read as none
    ('Esa', 'I lift weights five days a week.', "I'm easing off the weights, down to three days a week for now, with more yoga instead.", 'transition', 0.64),
    ('Fen', "I'm a freelance designer.", "I'm slowly moving from freelance work to a staff job, half my clients are already handed over.", 'transition', 0.6),
    ('Gwen', 'I drink whole milk.', "We're phasing out whole milk in favour of oat milk, one carton at a time.", 'transition', 0.5),
    pytest.param('Hugo', 'My band plays rock covers.', "The band's moving toward original songs, we've swapped out half the covers so far.", 'transition', 0.53, marks=MISS),  # read as supersede
    ('Ivy', 'I read mostly thrillers.', "Lately I'm drifting away from thrillers toward history books, more and more.", 'transition', 0.77),
    ('Jude', 'I weigh 95 kilos.', 'Down to 88 kilos so far, aiming for 80 by summer.', 'transition', 0.52),
    ('Kofi', "I'm teetotal.", 'The only time I drink is a toast at a wedding.', 'scoped_exception', 0.28),
    ('Lena', 'I walk to work.', 'On rainy days I take the bus instead.', 'scoped_exception', 0.38),
    pytest.param('Mika', 'I do my shopping at Aldi.', 'For wine I go to the little shop on the corner, though.', 'scoped_exception', 0.47, marks=MISS),  # read as none
    ('Nils', 'I start work at 8.', "On Mondays it's more like 7, for the team call.", 'scoped_exception', 0.39),
    ('Omar', "I don't eat red meat.", "My one exception is my dad's barbecue in August.", 'scoped_exception', 0.26),
    pytest.param('Pilar', 'I keep my phone on silent.', "When I'm on call it stays on loud.", 'scoped_exception', 0.65, marks=MISS),  # read as none
    ('Rory', 'I train at the gym downtown.', 'In the summer months I train in the park instead.', 'scoped_exception', 0.56),
    ('Sina', 'I sleep eight hours a night.', "During crunch weeks it's more like five hours a night.", 'scoped_exception', 0.42),
    ('Tove', 'I answer emails only in the mornings.', 'Fridays are the exception, I clear my inbox in the afternoon.', 'scoped_exception', 0.5),
    ('Ugo', 'I write in English at work.', 'With the Milan office I switch to Italian.', 'scoped_exception', 0.33),
    ('Aiko', 'I take the train to the office.', "On Fridays we have cake at the office, it's the best.", 'none', 0.35),
    ('Bram', 'I eat dinner at 9.', 'Dinner tonight was lasagne, so good.', 'none', 0.3),
    ('Cleo', 'I work at the bakery on Elm Street.', "When it's busy the queue goes out the door!", 'none', 0.14),
    ('Dov', 'My phone is an iPhone.', 'My brother is slowly switching to an Android.', 'none', 0.33),
    ('Esa', 'I lift weights five days a week.', 'Do you lift on weekends too?', 'none', 0.67),
    ('Fen', "I'm a freelance designer.", 'I might move to a staff job someday, who knows.', 'none', 0.5),
    ('Gwen', 'I drink whole milk.', 'My kids drink oat milk on weekdays, funny kids.', 'none', 0.49),
    ('Hugo', 'My band plays rock covers.', 'We played the pub on Saturday, packed house.', 'none', 0.19),
    ('Ivy', 'I read mostly thrillers.', "At the beach I read whatever's lying around, it was fun last week.", 'none', 0.42),
    ('Kofi', "I'm teetotal.", "My friends drink at weddings, I'm the designated driver.", 'none', 0.27),
    ('Lena', 'I walk to work.', 'You should take the bus when it rains!', 'none', 0.34),
    ('Mika', 'I do my shopping at Aldi.', "Aldi's opening a new store in the spring.", 'none', 0.7),
    ('Nils', 'I start work at 8.', 'I love mornings in the summer, the light is great.', 'none', 0.19),
    ('Omar', "I don't eat red meat.", 'On weekends I go hiking with my cousins.', 'none', 0.11),
    ('Pilar', 'I keep my phone on silent.', 'My phone is so old, the battery barely lasts.', 'none', 0.39),
    ('Rory', 'I train at the gym downtown.', 'The gym downtown is packed on Mondays, though.', 'none', 0.64),
    ('Sina', 'I sleep eight hours a night.', 'I had a weird dream about exams last night.', 'none', 0.27),
    ('Tove', 'I answer emails only in the mornings.', 'In the afternoons I usually go for a walk, though.', 'none', 0.43),
    ('Ugo', 'I write in English at work.', "I'm slowly learning Italian, three lessons so far.", 'none', 0.22),
    ('Jude', 'I weigh 95 kilos.', 'Went for a long run in the rain, felt great.', 'none', 0.09),
    # supersession in wordings of my own (written to find the rule's gaps, then used to close some)
    ('Abe', 'I work at Google.', 'Handed in my badge at Google on Friday; Monday I start at a small startup.', 'supersede', 0.35),
    ('Bea', 'I live in Lyon.', "We've packed up the Lyon flat for good and settled in Grenoble.", 'supersede', 0.54),
    ('Cal', 'I drive a Honda Civic.', "Sold the Civic last month, I'm driving a Tesla now.", 'supersede', 0.72),
    ('Dana', "I'm allergic to penicillin.", 'Turns out I was never allergic to penicillin, the test was a false positive.', 'supersede', 0.79),
    ('Eve', 'My username is eve_88.', "I renamed my account, it's evelyn_k now.", 'supersede', 0.54),
    pytest.param('Finn', "I'm single.", 'Big news, I got engaged to Maya last weekend!', 'supersede', 0.26, marks=MISS),  # read as none
    ('Gia', 'My favourite band is Blur.', 'These days Pulp has overtaken Blur as my favourite band.', 'supersede', 0.75),
    ('Hank', 'I play bass in a band.', 'I left the band, so no more bass for me.', 'supersede', 0.66),
    ('Ida', 'I take 20 mg of the medication daily.', 'The doctor upped my dose to 40 mg a day.', 'supersede', 0.78),
    ('Joe', "I'm a Chelsea fan.", "After this season I've given up on Chelsea, I support Arsenal now.", 'supersede', 0.74),
    pytest.param('Kay', 'My rent is 900 a month.', "The landlord raised the rent, it's 1,050 a month from this month.", 'supersede', 0.62, marks=MISS),  # read as none
    ('Leo', "I'm vegetarian.", 'I started eating chicken again last month.', 'supersede', 0.44),
    ('Mae', 'I use Spotify.', 'Cancelled Spotify and moved everything to Apple Music.', 'supersede', 0.53),
    ('Ned', "I'm studying medicine.", "I dropped out of medicine and I'm doing nursing instead.", 'supersede', 0.56),
    ('Ora', 'I have two cats.', "We're down to one cat since Pepper died in the spring.", 'supersede', 0.51),
    pytest.param('Pax', 'My phone number ends in 4471.', 'New number, by the way: it ends in 9902 now.', 'supersede', 0.47, marks=MISS),  # read as none
    ('Quy', "I'm on the night shift.", 'I got moved to the day shift, finally sleeping normal hours.', 'supersede', 0.62),
    pytest.param('Ria', "I go to St. Mark's church.", "We've joined a different parish, St. Anne's, closer to home.", 'supersede', 0.54, marks=MISS),  # read as none
    pytest.param('Sid', 'My doctor is Dr. Patel.', 'I switched GPs, Dr. Okafor sees me now.', 'supersede', 0.31, marks=MISS),  # read as none
    pytest.param('Tess', "I don't drink coffee.", "I've become a total coffee addict this year, three cups a day.", 'supersede', 0.6, marks=MISS),  # read as none
    pytest.param('Uri', 'My email is uri@old.com.', 'Please use uri@new.org from now on, the old address is closed.', 'supersede', 0.54, marks=MISS),  # read as none
    ('Vera', "I'm engaged to Paul.", 'Paul and I called off the engagement.', 'supersede', 0.71),
    pytest.param('Walt', "I'm 34.", 'Just turned 35 last week!', 'supersede', 0.64, marks=MISS),  # read as none
    ('Xena', "I'm a nurse at City Hospital.", 'I retired from nursing in March.', 'supersede', 0.6),
    pytest.param('Yara', 'I take the 7:15 train.', "They scrapped the 7:15, so it's the 6:50 for me now.", 'supersede', 0.48, marks=MISS),  # read as none
    pytest.param('Zack', 'My dog is a puppy.', 'Rex is a grown dog now, three years old.', 'supersede', 0.36, marks=MISS),  # read as none
    ('Abe', 'I work at Google.', 'Google announced layoffs today, scary times, but my team is fine.', 'none', 0.38),
    ('Bea', 'I live in Lyon.', 'We spent the weekend in Grenoble, lovely mountains.', 'none', 0.19),
    ('Cal', 'I drive a Honda Civic.', 'My neighbour just bought a Tesla.', 'none', 0.45),
    ('Dana', "I'm allergic to penicillin.", 'Had to remind the new dentist about my penicillin allergy.', 'none', 0.72),
    ('Gia', 'My favourite band is Blur.', "Pulp's new album is decent, but Blur is still my favourite.", 'none', 0.67),
    ('Ida', 'I take 20 mg of the medication daily.', "The doctor asked if I'd consider 40 mg, I said no.", 'none', 0.61),
    ('Joe', "I'm a Chelsea fan.", "Arsenal played well today, I'll give them that.", 'none', 0.49),
    ('Leo', "I'm vegetarian.", 'My partner started eating chicken again.', 'none', 0.39),
    ('Mae', 'I use Spotify.', 'Apple Music has some nice playlists, my sister says.', 'none', 0.58),
    ('Ora', 'I have two cats.', 'One of my cats knocked over a plant today.', 'none', 0.5),
    ('Walt', "I'm 34.", 'My brother just turned 35!', 'none', 0.54),
    ('Zack', 'My dog is a puppy.', 'The puppy chewed through another shoe.', 'none', 0.51),
    # a mixed check batch written after the rule was frozen for it: old rule 24/40, new 29/40 when
    # first run; then looked at and used (own data, not a held-out figure)
    ('Amara', 'I work as a paralegal at Finch & Co.', "I resigned from Finch & Co. and I'm clerking for a judge now.", 'supersede', 0.62),
    ('Basil', 'I live in a studio in Brooklyn.', 'We moved out of the Brooklyn studio; we rent a two-bed in Queens now.', 'supersede', 0.69),
    ('Cora', 'My car is a blue Fiat Panda.', "The Panda's gone, sold it to my cousin. I cycle everywhere now.", 'supersede', 0.57),
    ('Dex', "I'm lactose intolerant.", "Turns out I'm not lactose intolerant after all, the new test came back clean.", 'supersede', 0.76),
    ('Elle', 'My handle is @elle_paints.', 'Changed my handle to @elle_studio, the old one is gone.', 'supersede', 0.65),
    ('Femi', 'I go to the gym on Cross Street.', 'I cancelled the Cross Street gym membership and signed up at the climbing wall.', 'supersede', 0.56),
    ('Gus', 'I take 50 mg of sertraline.', "They've lowered my dose to 25 mg since last month.", 'supersede', 0.57),
    ('Hela', 'I support Leeds United.', "I don't follow Leeds anymore, I've switched to rugby.", 'supersede', 0.7),
    ('Isak', 'My favourite food is ramen.', 'Honestly pho has replaced ramen as my favourite.', 'supersede', 0.59),
    ('Jin', "I'm a smoker.", "I quit smoking in January and haven't touched one since.", 'supersede', 0.51),
    ('Kira', 'I drink oat milk.', "No more oat milk for me, I'm on soy now.", 'supersede', 0.74),
    ('Lars', 'My team has 6 people.', 'After the reorg my team is down to 4 people.', 'supersede', 0.68),
    ('Mona', 'I buy most of my clothes new.', "I'm in the middle of switching to second-hand clothes, half the closet is thrifted now.", 'transition', 0.65),
    ('Nico', 'I read the news on paper.', "I'm gradually moving my news reading to the tablet, the paper only on Sundays so far.", 'transition', 0.44),
    ('Oda', 'I use Excel for budgeting.', "I'm partway through moving my budget from Excel into YNAB.", 'transition', 0.65),
    ('Pau', 'I eat a lot of sugar.', 'Cutting down on sugar bit by bit, down to one treat a day so far.', 'transition', 0.5),
    ('Quill', 'I work at the Leeds office.', "I'm transferring to the Manchester office, two more weeks in Leeds to go.", 'transition', 0.72),
    ('Rina', 'I play tennis.', "I'm slowly swapping tennis for padel, more padel every month.", 'transition', 0.47),
    ('Saul', 'My kids speak only English.', "My neighbour's kids are learning Spanish step by step.", 'none', 0.63),
    ('Tuva', 'I run 5 km a day.', "I'm building up towards 10 km a day, at 7 km so far.", 'transition', 0.61),
    ('Ulla', "I'm vegetarian.", 'The only exception is the odd fish taco on holiday.', 'scoped_exception', 0.28),
    ('Vik', 'I go to bed at 10.', "On weekends it's more like midnight.", 'scoped_exception', 0.45),
    ('Wren', 'I drink tea, not coffee.', "Before an early flight I'll have a coffee instead.", 'scoped_exception', 0.5),
    ('Xavi', 'I work from the office.', 'In August I work from home instead, the office is empty anyway.', 'scoped_exception', 0.54),
    ('Yoko', "I don't eat dessert.", "Birthdays excepted, I'm not a monster.", 'scoped_exception', 0.2),
    pytest.param('Zane', 'I walk to school with the kids.', 'When it snows we drive instead.', 'scoped_exception', 0.28, marks=MISS),  # read as none
    ('Abi', 'I wear glasses.', 'For swimming I switch to contacts.', 'scoped_exception', 0.41),
    pytest.param('Bo', 'I cook at home every night.', "Fridays are takeaway night though, that's our treat.", 'scoped_exception', 0.28, marks=MISS),  # read as none
    ('Amara', 'I work as a paralegal at Finch & Co.', 'Finch & Co. hired three new paralegals this week.', 'none', 0.77),
    ('Basil', 'I live in a studio in Brooklyn.', 'My friend moved to Queens, I might visit him.', 'none', 0.43),
    ('Cora', 'My car is a blue Fiat Panda.', "Should I sell the Panda? It's getting old.", 'none', 0.51),
    ('Dex', "I'm lactose intolerant.", 'Found a great lactose-free ice cream today!', 'none', 0.61),
    ('Femi', 'I go to the gym on Cross Street.', 'The gym on Cross Street is repainting the changing rooms.', 'none', 0.51),
    ('Gus', 'I take 50 mg of sertraline.', 'The pharmacist said 50 mg is a common dose.', 'none', 0.63),
    ('Isak', 'My favourite food is ramen.', 'Tried pho today, not bad, but ramen is still my number one.', 'none', 0.54),
    ('Jin', "I'm a smoker.", 'My brother quit smoking, good for him.', 'none', 0.49),
    ('Lars', 'My team has 6 people.', 'My team won the quarterly award, all 6 of us!', 'none', 0.49),
    ('Rina', 'I play tennis.', 'Tennis at 7 tomorrow, then brunch.', 'none', 0.56),
    ('Vik', 'I go to bed at 10.', 'Last night I went to bed at 1, terrible idea.', 'none', 0.56),
    ('Zane', 'I walk to school with the kids.', "The kids' school is closed on Monday for training.", 'none', 0.29),
]


def _action(speaker: str, old: str, new: str, a: float) -> str:
    o = Record(id="o", namespace="t", text=old, speaker=speaker)
    n = Record(id="n", namespace="t", text=new, speaker=speaker)
    return fallback_verdict(o, n, GateScore(a=a, b=None, d=None, escalate=True), why="test").action


@pytest.mark.parametrize("speaker,old,new,expected,a", PAIRS)
def test_rule_reads_changes_under_way_and_scopes(speaker: str, old: str, new: str, expected: str, a: float) -> None:
    assert _action(speaker, old, new, a) == expected


def test_aspect_doctests() -> None:
    assert doctest.testmod(atma.aspect).failed == 0


@pytest.mark.parametrize("sentence", [
    "I'm cutting down on the weights, three days a week so far.",
    "We're shifting dinner earlier bit by bit, it's at 8 now and we want 7.",
    "I'm starting to switch from violin to viola.",
    "I'm working out my notice at the bakery, two more weeks to go.",
])
def test_under_way_finds_a_change_not_finished(sentence: str) -> None:
    assert under_way(sentence)


@pytest.mark.parametrize("sentence", [
    "I switched to decaf and so far it's great.",   # done: "so far" tells how it goes
    "We're moving to Austin next week.",            # a plan with a date, nothing under way yet
    "I've started a new painting, slowly.",         # no change word
    "So far the move has been smooth.",
])
def test_under_way_ignores_done_changes_and_other_progress(sentence: str) -> None:
    assert not under_way(sentence)


@pytest.mark.parametrize("sentence,cue", [
    ("Birthdays are my cheat days, cake included.", "exception"),
    ("Fridays are the exception, I clear my inbox in the afternoon.", "exception"),
    ("During crunch weeks it's more like five hours a night.", "situation"),
    ("When I'm on call it stays on loud.", ""),  # a when-clause without a contrast word: talk is full of them
    ("When the roads are icy I take the tram instead.", "situation"),
    ("I went to the market on Fridays.", ""),
    ("The weather was lovely in July.", ""),
])
def test_scope_cue(sentence: str, cue: str) -> None:
    assert scope_cue(sentence) == cue


def test_someone_elses_change_under_way_changes_nothing() -> None:
    # "is" between the other person and the change word: was read as the speaker's own transition
    assert _action("Ines", "I eat meat most days.", "My sister is slowly going vegetarian.", 0.47) == "none"
