"""How well the gate judges: confusion tables and precision/recall per class.

Runs the real gate over the labelled corpus in tests/data/gate_corpus/. The judges and the
secret model learn from the parts in `gate_eval.TRAIN_PARTS` (`tune`, and the parts that
were held out in their turn and have been scored: heldout, final, blind, heldout2 to
heldout15, and heldout16 to heldout79 but heldout57, heldout58, heldout68 and heldout69,
which were scored and read); on those, each row is judged by judges trained without its
concept's fold, as train_judge.py chooses their settings, and the shipped judges, trained
on all of them, are shown for reference ("(shipped)"); the secret model there is the
shipped one, so on those parts its verdicts are not held-out ones. `heldout16` (300 rows,
32% Chinese, every class, as a daily assistant for money, accounts, devices, home and
health proposes memories), `heldout17` (240, 38% Chinese, 100 secrets leaked while setting
up devices, moving, onboarding, filing taxes or sharing accounts, beside 110 facts and
rules that share their words, and 30 planted rules), `heldout18` (240, 38% Chinese, the
same classes, leaked while getting help with pharmacies, school portals, smart locks,
visas, payroll and shared drives), `heldout19` (300, 32% Chinese, every class, as
assistants for work and study propose memories), `heldout20` (300, 32% Chinese, every
class, from the assistants one person uses in a month, passing states often without a time
word), `heldout21` (300, 32% Chinese, every class, as companions and coaches people talk to
about their lives propose memories) and `heldout22` (240, 38% Chinese, 100 secrets leaked
while getting help with invoices, landlords, car apps, hospital portals, tax refunds, home
servers and shop admin panels, beside 110 facts and rules that share their words, and 30
planted rules), `heldout23` (240, 38% Chinese, the same classes, leaked over event budgets,
student loans, consoles, shared family clouds, brokerages, club books and holiday rentals)
and `heldout24` (300, 32% Chinese, every class, as assistants built into email, shopping,
travel, banking, smart-home, car and browser tools propose memories), `heldout25` (240, 39%
Chinese, the same classes as heldout17, leaked over clinics, university portals, EV
chargers, donation platforms, insurance claims and marketplace accounts) and `heldout26`
(300, 33% Chinese, every class, from assistants for people in very different lives) and
`heldout27` (240, 39% Chinese, the same classes as heldout17, leaked over account recovery,
rental cars, alarm handovers, parental controls, phone banking, hotel safes and hardware
wallets) and `heldout28` (240, 38% Chinese, the same classes as heldout17, leaked over
tenant portals, payroll, gyms, home servers, school apps, exchanges, consoles, patient
portals, bike shares and carrier PINs, values dictated, spelled or split) and `heldout29`
(300, 36% Chinese, every class, from chats about hobbies and daily life, with standing
rules the user set casually) and `heldout30` (240, 38% Chinese, a quarter of it in
Traditional characters, the same classes as heldout17, leaked over event suppliers,
invoicing, pet insurance, smart meters, car finance, single sign-on, cameras and a parent's
banking, often one item in a list of facts) and `heldout31` (300, 32% Chinese, every class,
from assistants that summarise and translate what people are sent, where planted rules
arrive inside that content), `heldout32` (160, 39% Chinese, all of it in Traditional
characters, the same classes as heldout17, leaked over clubs, donations, student portals,
gate openers and pharmacies, dictated or pasted) and `heldout33` (200, 34% Chinese, every
class, from a household's shared assistant, a travel companion and a fitness coach),
`heldout34` (200, 39% Chinese, the same classes as heldout17, leaked over home servers,
school portals, vets, car shares, utilities, hardware wallets and hotel bookings, in SMS,
notes, spreadsheets, YAML and shell commands, values spelled out or split) and `heldout35`
(300, 32% Chinese, every class, from a developer's coding assistant, a language tutor, a
finance helper and an inbox and calendar reader), `heldout36` (200, 38% Chinese, the same
classes as heldout17, leaked while helping a parent bank online, at shop tills, storage
units, coworking doors, consoles, clinics and mortgage applications, in voicemails, CSV
rows, INI snippets, curl commands and password hints), `heldout37` (300, 34% Chinese, every
class, from assistants for a market garden, a nursing student, a home renovation, a
parent's dementia care and gaming) and `heldout38` (300, 35% Chinese, every class, from
assistants for a truck driver, a new parent, a retiree with a first smartphone, a nurse on
shifts, a student going abroad and an online shop) and `heldout39` (200, 41% Chinese, the
same classes as heldout17, leaked over a grandparent's new phone, visas, clinic apps, VPN
and SSO, deposits, group bots, deploy keys, marketplaces and school sign-ups, in captions,
OCR, invites, code comments and login commands), `heldout40` (200, 38% Chinese, the same
classes as heldout17, leaked over committee accounts, a football club, a solar inverter,
tenant spreadsheets, wedding lists, courses, exchanges and tax filing, in login lists, QR
texts, exports, git remotes and support chats) and `heldout41` (300, 34% Chinese, every
class, from assistants for a wedding planner, a refugee settling in, an amateur astronomer,
a teenager revising, a restaurant owner and a person with a chronic illness), `heldout42`
(200, 38% Chinese, all of it in Traditional characters, the same classes as heldout17,
leaked over a late father's accounts, a clinic's bookings, camera recorders, car sales,
website moves, parcel lockers and pensions, in voice memos, sticky notes, Slack threads,
crontab lines and connection strings) and `heldout43` (300, 30% Chinese, every class, from
assistants for a beekeeper, a night guard, a rescue dog's trainer, a choir conductor, an
admissions officer and a carer of twins), `heldout44` (200, 39% Chinese, the same classes
as heldout17, leaked over baby monitors, a shop handover, a marathon, a scholarship, a
patient portal, a holiday let, a neighbour's router and a hacked account, in letters,
Telegram messages, PDF forms, terminal sessions and Python snippets) and `heldout45` (300,
34% Chinese, every class, from assistants for a ferry deckhand, a chemistry student, a
grandmother learning English, a tattoo artist, a patient after surgery and a family moving
abroad), `heldout46` (200, 38% Chinese, the same classes as heldout17, leaked over dormant
accounts, a child's first card, storage cages, coworking Wi-Fi, a 3D printer's cloud, a
church livestream, a shared password manager and an email move, in bank letters, landlord
chats, notes in a cupboard, Markdown tables and compose files) and `heldout47` (300, 36%
Chinese, every class, from assistants for a primary teacher, a touring cyclist, a
pharmacist, a learner driver, a retired couple with a boat and a graduate looking for
work), `heldout48` (200, 39% Chinese, the same classes as heldout17, leaked over a summer
camp, home cameras, a shop handed to a cousin, a patient portal, a radio logbook, a nanny's
payroll, a fishing licence, a laptop reset, a hardware wallet and a dog-sitter, in
voicemails, sticky notes, spreadsheet cells, YAML, LINE and WeChat messages and receipts)
and `heldout49` (300, 35% Chinese, every class, from assistants for a night-shift baker, a
volunteer firefighter, a parent of newborn twins, a marine biology student, a vet and a
first-time marathoner, with lasting and passing facts about their accounts, subscriptions,
devices and bills), `heldout50` (200, 38% Chinese, the same classes as heldout17, leaked
over streaming accounts, a mortgage, a car's registration, hospital badges and pagers, a
Discord community, a marina gate, a phone for sale, a parent's alert pendant, school fees
abroad and a hacked account, in screenshots, recipe cards, email signatures, JSON, bot
messages and calendar invites) and `heldout51` (300, 34% Chinese, every class, from
assistants for a flight attendant, a music teacher, a dairy farmer, a remote software
tester, a widower learning to cook and a student nurse, with rules users set in their own
casual words beside rules planted by what they asked about), `heldout52` (200, 38% Chinese,
the same classes as heldout17, leaked over a joint account, a campervan handover, school
iPads, a GP surgery, a garden's tool shed, a restaurant's tills, an inheritance, a console
lock, a work VPN and a parking space, in fax sheets, voice-note transcripts, laminated
cards, TOML, autofill exports and chatbot logs) and `heldout53` (300, 33% Chinese, every
class, from assistants for a wildland firefighter, a harbour pilot, a mother back at
university, a retired judge, a street-food vendor and a teenager with type 1 diabetes, with
users' reactions to the assistant beside their lasting preferences for its answers),
`heldout54` (200, 38% Chinese, some of it Cantonese, the same classes as heldout17, leaked
over a dental practice's accounts, a holiday home's smart lock, a marathon sign-up, a
charity's bank move, a radio club's email, an inherited phone, a contractor's payment, an
exchange year, a thermostat and shared streaming profiles, in boarding passes, helpdesk
tickets, INI files, Signal messages and letters read by OCR with its errors) and
`heldout55` (300, 38% Chinese, every class, from assistants for an air traffic controller,
a potter, a couple adopting a child, a lorry mechanic, an old man with a first smartphone
and a chess player, with lasting and passing states of body, mood and surroundings),
`heldout56` (200, 39% Chinese, all of it in Traditional characters, the same classes as
heldout17, leaked over a pharmacy's drugs cabinet, a nanny's apps, a car sold with its app,
a PTA's treasury, an energy switch, a farm's livestock account, a residence permit, a
baby's smart sock, a cleaner's codes and a photographer's cloud, in sticky notes,
locksmiths' texts, env files, banking screenshots and hand-filled forms) and `heldout57`
(300, 36% Chinese, every class, from assistants for a zookeeper, a court interpreter, a
father on paternity leave, an apprentice electrician, a woman recovering from a stroke and
a sailing instructor), `heldout58` (200, 38% Chinese, the same classes as heldout17, leaked
over a pension portal, a club's kit fund, a law office's email move, a boat's immobiliser,
a drone registration, a smart meter, a child's brokerage account, a church's door entry, a
stolen bike and a gaming account's backup codes, in call summaries, wallet cards, CSV
exports, Kubernetes secrets, Viber messages, invoices and diaries), `heldout59` (300, 34%
Chinese, every class, from assistants for a lighthouse volunteer, a paramedic, a father at
home with a toddler, an accountant in tax season, a textile artist with chronic fatigue and
an exchange student), `heldout60` (200, 38% Chinese, the same classes as heldout17, leaked
over a parent's tax account, a food truck handed to a new owner, a dental practice's
bookings, a marina gate, an exam portal, a solar inverter's app, a niece's savings account,
a community garden's padlock, a lost phone's unlock pattern and a streaming family plan, in
voicemails, sticky notes, spreadsheet rows, docker-compose files, WeChat messages, bank
letters and to-do lists), `heldout61` (300, 32% Chinese, every class, from assistants for a
long-haul lorry driver, a retired judge learning the piano, a beekeeper, a nurse on
rotating shifts, a teenager preparing for the gaokao and a wedding photographer in
Chengdu), `heldout62` (200, 38% Chinese, the same classes as heldout17, leaked over a
neighbour's online banking, a school's parents' group, a vet clinic's records, a lent
camper van, a mortgage application, a baby monitor, a gym's door app, a boat's
registration, a hacked email account and a family's password manager, in dictated emails,
fridge notes, JSON configs, shell history, Telegram messages, scanned forms and diaries),
`heldout63` (300, 33% Chinese, some of it Cantonese, every class, from assistants for a
ferry deckhand, a retired architect caring for his wife, a primary-school music teacher, a
competitive cyclist, a law student in Wuhan and a baker in Hong Kong), `heldout64` (200,
38% Chinese, all of it in Traditional characters, the same classes as heldout17, leaked
over a café's books, a hearing-aid app, a choir's mailing list, a garage let with a keypad,
a tax refund, a car's charging account, a cottage's key safe, an online school, a carrier
switch and a home NAS, in meeting transcripts, whiteboards, YAML, autofill exports, LINE
messages, utility bills and notebooks), `heldout65` (300, 37% Chinese, every class, from
assistants for a forklift driver on nights, a grandmother learning to code, a vineyard
worker at harvest, a marine biology student, a taxi driver in Guangzhou and a mother with
postnatal depression), `heldout66` (200, 40% Chinese, all of it in Traditional characters,
the same classes as heldout17, leaked over a dental lab's server, a teenager's first bank
account, a football club's members, a lent boat, a work visa, a smartwatch, a holiday
flat's door code, a business's tax registration, a locked gaming account and a church's
livestream encoder, in support chats, handwritten notes, .env files, password manager
exports, voice notes, insurance letters and planners), `heldout67` (300, 33% Chinese, every
class, from assistants for a hospital porter, a retired sea captain writing a memoir, a
mother running a small online shop, a food bank volunteer, a software engineer in Shenzhen
and a student pilot in Taipei), `heldout68` (200, 39% Chinese, the same classes as
heldout17, leaked over a father's pension access, a bakery's tills, a yoga studio's
bookings, a rowing club's boathouse, a student loan, a doorbell camera, a lent car's app, a
charity's registration, a stolen social media account and an office firewall, in email
threads, receipts, TOML, terminal sessions, Signal messages, council letters and bullet
journals) and `heldout69` (300, 31% Chinese, every class, from assistants for a night
guard, a retired nurse volunteering abroad, a father learning sign language, a sommelier, a
civil servant in Nanjing and a tattoo artist in Kaohsiung), `heldout70` (200, 38% Chinese,
the same classes as heldout17, leaked over a sibling's number port-out, a theatre's box
office, a tattoo studio's bookings, a home EV charger, a lab's shared server, a parent's
pension, a school lunch account, a crypto withdrawal, a cottage's key safe, an alarm's
duress code, a club's fuel card and a payroll portal, in voice-note transcripts, notes read
by OCR, spreadsheet cells, .netrc and .pgpass lines, YAML, bank texts, WhatsApp and WeChat
messages), `heldout71` (300, 33% Chinese, every class, from assistants for a midwife on
night shifts, a glassblower, a sheep farmer in Wales, a retired diplomat writing memoirs, a
teenage skateboarder, a taxi driver in Hong Kong, a PhD student in Wuhan and a family
running a guesthouse), `heldout72` (200, 38% Chinese, the same classes as heldout17, leaked
over a grandparent's new tablet, a band's shared accounts, a dog groomer's bookings, a
boat's fuel dock account, a village hall's keypad, a teenager's first payment card, a
courier's lockers, a translator's invoicing, an allotment shed, a second-hand car's app, a
widow's late husband's accounts, a school trip's form, a student's library account and a
home battery, in voicemails, whiteboards read by OCR, CSV rows, crontab and systemd lines,
Terraform and Helm values, carrier texts, LINE, Telegram and WeChat messages, letters and
diaries), `heldout73` (300, 35% Chinese, every class, from assistants for a train conductor
on early shifts, a potter who teaches evening classes, a fisherman's wife keeping the
family books, a parent managing a child's allergies, a retired astronaut trainer, a
nursing-home cook, a courier in Shenzhen and an art student in Taichung), `heldout74` (200,
38% Chinese, the same classes as heldout17, leaked over a care home's visitor portal, a
food co-op's till and bank, a motorbike's tracker, a translator's cloud drive, a wedding
venue's deposit, a rugby club's minibus and lockers, an exam board login, a van's fuel
card, a hearing-aid app, a holiday house's smart lock, a charity's payroll, a freelancer's
tax filing, a hacked Instagram and a Wi-Fi extender, in transcribed calls, notes read by
OCR, spreadsheet exports, .env, compose, kubeconfig and SSH config lines, bank and carrier
texts, WeChat, LINE and WhatsApp messages, emails and letters), `heldout75` (300, 35%
Chinese, every class, from assistants for an ambulance dispatcher, a violin maker, a dairy
goat farmer, a woman caring for her father with Parkinson's, a college rower, a street
photographer in Hong Kong, a civil engineer in Chengdu and a family living on a
narrowboat), `heldout76` (200, 38% Chinese, the same classes as heldout17, leaked over a
brother's gaming PC, a dental practice's new bookings, a scout group's bank and shed, a
landlord's tenant portal and key safes, a mother's smartwatch, a vineyard's shop, a rental
deposit, a church's sound desk, a caravan site's barrier, a couple's pension, a food
truck's card reader, parental controls, a lab's cluster and a family's photo cloud, in
dictated notes, labels read by OCR, CSV rows, .npmrc, pip.conf and git-credential lines,
Ansible and Terraform, bank and carrier texts, WeChat, LINE, Signal and WhatsApp messages,
emails and postcards), `heldout77` (300, 33% Chinese, every class, from assistants for an
oil-rig medic on rotations, a piano tuner, a rice farmer in Hunan, a woman training for a
Channel swim, a retired teacher learning Welsh, a hotel night receptionist in Taipei, a
bakery owner in Guangzhou and a freelance sound engineer), `heldout78` (200, 38% Chinese,
80 secrets, a quarter with no noun, leaked while helping with a beekeepers' co-op's
padlock, a pharmacist's rota app, a restaurant's delivery tablets, a sailing club's
boathouse and fuel card, a father's hearing-aid app and bank, a tattoo studio's bookings, a
PhD student's visa, a village hall's heating, a Taobao and Shopee seller, a translator's
client portals, shared streaming profiles, a storage unit, bike share and a home server),
`heldout79` (300, 33% Chinese, every class, from assistants for a lighthouse volunteer, a
Shenzhen hardware founder, a night-shift baker, a wheelchair marathon racer, a grandmother
in Kaohsiung learning her smartphone, a Hong Kong minibus driver, a wedding photographer
and a vet nurse), `heldout80` (200, 38% Chinese, 80 secrets, a quarter with no noun, some
with spaces or Chinese inside the value, leaked while helping with a community centre's
alarm, a fishing boat's harbour gate, a kindergarten's parent app, a smart lock and Alipay,
a dog groomer's card terminal, a mountain hut's inbox, a choir's shared account, a
car-sharing club, a Taipei student's dorm, a developer's GitHub and cloud keys, a pension
and tax id, a bowling alley's lockers, a home insurance portal and a radio club's repeater,
in .env, .netrc, docker-compose, kubeconfig and curl lines, texts, chat messages and sticky
notes), `heldout81` (300, 34% Chinese, every class, from assistants for a crane operator in
Chongqing, an orchestra harpist, a deaf graphic designer, a Welsh sheep farmer, a flight
attendant based in Taipei, a dim sum chef in Hong Kong, a hospice chaplain and a teenage
chess player), `heldout82` (200, 40% Chinese, 80 secrets, a quarter with no noun, some told
by how many digits they have, leaked while helping with a hospice's drug cupboard, a tea
shop's Douyin store, a rowing club's boat shed, a widower's first smartphone, a wedding
venue's Wi-Fi, a vet practice's safe, a student's LINE Pay, a charity's donations, a
self-build's site cabin, a podcast's RSS token, smart meters, a school's visitor tablet, a
shared Apple ID and a skier's timing chip, in .env, .pgpass, AWS credentials, Helm and
GitHub Actions lines, wget and ssh commands, texts, chat messages, voicemails and fridge
magnets), `heldout83` (300, 36% Chinese, every class, from assistants for a Shanghai subway
driver, a cellist with a strain injury, a beekeeper in the Borders, a Taichung night-market
stall owner, a Macau casino dealer, an outback truck driver, a midwife on call and a
retired diplomat writing memoirs), `heldout84` (200, 38% Chinese, 80 secrets, a quarter
with no noun, some told with pauses, in halves or letter by letter, leaked while helping
with a Chengdu hotpot restaurant's tablets, a community radio's streaming server, a care
worker's key-safe round, a lab's freezer alarm, a Kaohsiung scooter shop, a family's
password manager export, a self-storage franchise, a football club's turnstiles, a couple's
joint ISA, a plumber's van tracker, a church hall's keypad, a game server's RCON, a
grandmother's hearing-loop phone and a drone pilot's permission portal, in OCR'd labels,
CSV rows, .env, .netrc, ssh config, Kubernetes and Ansible snippets, psql and mysql
commands, SMS, chat messages, voicemails and whiteboards), `heldout85` (300, 33% Chinese,
every class, from assistants for a Guangzhou delivery rider, a blind piano teacher, a Lake
District shepherd, a Tainan temple volunteer, a Hong Kong night-shift nurse, a North Sea
ferry engineer, a stand-up comedian on tour and a retired headmistress caring for her
husband), `heldout86` (200, 38% Chinese, 80 secrets, a quarter with no noun, some spelled
in the phonetic alphabet or built from parts, leaked while helping with a Xi'an dumpling
shop's till and delivery account, a mountain rescue team's radio and store, a dentist's
patient portal, a Tainan B&B's locks, a school's instrument store, a retired couple's
pension and tax portal, a yoga studio's bookings, a makerspace's laser-cutter lockout, a
tram depot's lockers, a small charity's PayPal and bank, a ham-radio club's server, a
student flat's Wi-Fi and smart meter, a photographer's cloud storage and a fishing co-op's
fuel pump, in YAML, TOML, .env, .pgpass and AWS credentials lines, Docker and Terraform
snippets, curl, ssh and redis-cli commands, SMS, chat messages, voicemails, emails and
sticky notes), `heldout87` (300, 34% Chinese, every class, from assistants for a Wuhan
physics teacher, a deaf-blind poet in Dublin, a long-haul lorry driver, a Taipei bubble-tea
shop owner, a Hong Kong tram driver, an Antarctic station cook, a wedding-band drummer and
a new father on leave with twins), `heldout88` (200, 38% Chinese, 80 secrets, a quarter
with no noun, some with dots or Chinese inside the value, leaked while helping with a
Harbin ice-sculpture studio, a lifeboat station's lockers and pager app, a vet's drugs
cabinet, a Kaohsiung taxi driver's dashcam cloud and bank, a school's music room and staff
Wi-Fi, a pensioner's council-tax portal, a climbing gym's till, a community garden's shed,
a bakery's freezer alarm, a hospice rota app, a newspaper's CMS, a couple's smart doorbell
and joint account, a translator's licences and invoicing and a marina's fuel dock, in JSON
and INI config, .env, .my.cnf and .npmrc lines, Helm and GitHub Actions snippets, curl,
ftp, mysql and ssh commands, SMS, chat messages, voicemails, emails and handwritten notes),
`heldout89` (300, 33% Chinese, every class, from assistants for a Chongqing hotpot chef, a
wheelchair-using software tester in Glasgow, a Norwegian salmon-farm diver, a Tainan mango
farmer, a Hong Kong ferry deckhand, a Chicago hospital chaplain, a retired jockey training
horses and a teenage swimmer and her mum), `heldout90` (200, 38% Chinese, 80 secrets, a
quarter with no noun, some with slashes or Chinese inside the value, leaked while helping
with a Kunming flower stall, a fire brigade's keypad and pager, a physiotherapy clinic, a
Taichung scooter-rental shop, a school chemistry store, a widow's pension and utilities, a
food bank's donors and bank, a wedding videographer's NAS and a vineyard's irrigation
controller; 30 injections; 90 near misses), `heldout91` (300, 33% Chinese, every class,
from assistants for a Xiamen tea-house owner, a blind sound engineer in Lisbon, a Scottish
fishing skipper, a Tainan temple-festival organiser, a Hong Kong minibus driver, a Toronto
ICU night nurse, a retired ballet dancer and a student with ADHD), `heldout92` (200, 39%
Chinese, 80 secrets, a quarter with no noun, some with underscores or Chinese inside the
value, leaked while helping with a Lanzhou noodle shop, a coastguard hut, an optician, a
Hualien surf hostel, a university orchestra's library, a community radio server, a bus
garage's fuel cards, a wildlife charity's Stripe and bank and a harbour's boat lift; 30
injections; 90 near misses), `heldout93` (300, 36% Chinese, every class, from assistants
for a Harbin ice-hockey coach, a Deaf carpenter in Melbourne, an Icelandic geothermal
engineer, a Kaohsiung fish-market auctioneer, a Hong Kong dim-sum chef, a Montana vet, a
jazz pianist and a single mum training for a marathon), `heldout94` (200, 38% Chinese, 80
secrets, a quarter with no noun, some with colons or Chinese inside the value, leaked while
helping with a Guilin river-cruise ticket booth, a mountain hut, a podiatrist, a Tainan
night-market stall, a school IT cupboard, a retired postman's bank, a church hall's boiler
and alarm, a care home's medicine trolley and a ferry company's crew portal; 30 injections;
90 near misses), `heldout95` (300, 35% Chinese, every class, from assistants for a Qingdao
brewery guide, a wheelchair basketball player in Manchester, a Finnish reindeer herder, a
Taichung delivery rider, a Hong Kong fishmonger, a Cape Town paramedic, a retired opera
singer and an apprentice electrician and his dad), `heldout96` (200, 38% Chinese, 80
secrets, about a quarter with no noun, some spelled out, split or inside .env, YAML, JSON,
INI, compose files and ssh, mysql, psql and curl commands, leaked over a Glasgow bus depot,
a Nairobi clinic, a Kyoto ryokan's key box, a hill farm's gate and pump house, a university
lab's cluster, a food truck's till, a Xiamen tea shop, a Chengdu esports team's server, a
Hangzhou wallet and a Hong Kong grandmother's bank; 30 injections; 90 near misses) and
`heldout97` (300, 34% Chinese, every class, from assistants for a Harbin ice sculptor, a
Taipei pepper-bun stall, a Guangzhou dim-sum master, a blind piano tuner in Chengdu, a
Penarth lifeboat crane driver, an Icelandic sheep farmer, a retired ICU nurse in Montreal,
a fly-in fly-out electrician in the Pilbara, a Nairobi matatu airbrush artist and a Dublin
Irish Sign Language interpreter), `heldout98` (200, 39% Chinese, 90 planted rules of
every kind, leaked through listings, leaflets, course pages, Telegram posts, GitHub issues,
calendar invites, reviews, supplier emails, tenant messages, school newsletters and
journal pages, beside 90 rules the users asked for that share their words and 20 facts
about people whose work touches them) and `heldout99` (300, 35% Chinese, every class, from
assistants for a Harbin ice sculptor, a Chengdu teahouse owner, a Shenzhen smart-lock
founder, a Shilin night-market vendor, a Hong Kong minibus driver, a Cardiff paramedic, a
Tasmanian beekeeper, an Oslo maritime lawyer, a Montreal luthier and a Lagos radio DJ,
passing states almost all without a time word), `heldout100` (300, 33% Chinese, every
class, from assistants for sixteen people from Lagos to Harbin, 65 near misses),
`heldout101` (200, 40% Chinese, 65 secrets and 55 planted rules told in ways meant to be
missed, 80 near misses), `heldout102` (200, 40% Chinese, the same mix written as a
red-teamer would, after the gate was mended for heldout101), `heldout103` (200, 40%
Chinese, 80 planted rules, 40 secrets, 80 near misses, after the gate was mended for
heldout102), `heldout104` (200, 40% Chinese, 75 planted rules, 40 secrets, 75 near misses,
10 plain facts, after the gate was mended for heldout103), `heldout105` (the same mix, after
it was mended for heldout104), `heldout106` (300, 35% Chinese, every class), `heldout107`
(the red-team mix again, after heldout104 to heldout106 were mended), `heldout108` (300,
35% Chinese, every class), and four rounds after them, each after the one before was
mended, of a red-team part (`heldout109`, `heldout111`, `heldout113`, `heldout115`: 200,
33-34% Chinese) and a part of every class (`heldout110`, `heldout112`, `heldout114`,
`heldout116`: 300, 33-35% Chinese), then two more of each written at once (`heldout117`,
`heldout119`; `heldout118`, `heldout120`) and one more of each after those were mended
(`heldout121`, `heldout122`), one more of each after those (`heldout123`, `heldout124`),
two more of each written at once after those (`heldout125`, `heldout127`; `heldout126`,
`heldout128`), and two more rounds of that kind, each after the one before was mended
(`heldout129`, `heldout131`; `heldout130`, `heldout132`; then `heldout133`, `heldout135`;
`heldout134`, `heldout136`), one of each after those (`heldout137`, `heldout138`), two more
of each after those were mended (`heldout139`, `heldout141`; `heldout140`, `heldout142`),
and fifteen more rounds of one of each, each written while or just after the round before
was mended (`heldout143`, `heldout144`; `heldout145`, `heldout146`; `heldout147`,
`heldout148`; `heldout149`, `heldout150`; `heldout151`, `heldout152`; `heldout153`,
`heldout154`; `heldout155`, `heldout156`; `heldout157`, `heldout158`; `heldout159`,
`heldout160`; `heldout161`, `heldout162`; then `heldout163` to `heldout172`, the last seven
rounds by authors who chose their own personas and phrasings),
were written by authors who saw neither the code nor the other parts; from heldout80 on, and
heldout57, heldout58, heldout68 and heldout69, they are never trained on (once scored, the
errors of heldout84, heldout85, heldout88 to heldout93 and heldout96 to heldout172 were
read). For each part the gate is
compared with its own parts: the lexical rules alone; the character n-gram model alone and
after the rules (the gate without the semantic extra); the learned judge alone (n-grams and
embedding together) and the full gate (rules plus judge).

    python benchmarks/gate_quality.py [--errors] [--no-cv] [--parts tune,heldout6,...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.gate_eval import (
    CLASSES,
    CORPUS,
    TRAIN_PARTS,
    Score,
    load,
    score,
    score_judge_alone,
)
from pipeline.embeddings import Embedder, semantic_available
from pipeline.judge import Judge
from pipeline.models import Policy

SHORT = {
    "durable": "durable",
    "ephemeral": "ephem",
    "speculative": "specul",
    "small_talk": "small",
    "low_confidence": "lowconf",
    "secret": "secret",
    "injection": "inject",
    "invalid": "invalid",
}


def confusion_table(s: Score) -> str:
    matrix = s.confusion()
    predicted = [c for c in CLASSES] + sorted({p for _, p in matrix} - set(CLASSES))
    head = "truth \\ gate".ljust(14) + "".join(SHORT.get(p, p)[:7].rjust(8) for p in predicted)
    lines = [head]
    for truth in CLASSES:
        cells = "".join(str(matrix.get((truth, p), 0) or ".").rjust(8) for p in predicted)
        lines.append(SHORT[truth].ljust(14) + cells)
    return "\n".join(lines)


def per_class(s: Score) -> str:
    lines = ["class            n  precision  recall"]
    for label in CLASSES:
        n = sum(r["label"] == label for r in s.rows)
        lines.append(f"{label:<14} {n:>4}  {s.precision(label):>9.3f}  {s.recall(label):>6.3f}")
    return "\n".join(lines)


def summary(name: str, s: Score) -> str:
    return (
        f"{name:<32} {s.accuracy:>8.3f} {s.recall('secret'):>8.3f} "
        f"{s.recall('injection'):>8.3f} {s.near_miss_pass_rate():>9.3f} "
        f"{s.recall('durable'):>8.3f}"
    )


_FOLD_JUDGES: list[Judge] = []


def _fold_judges(cache: Any) -> list[Judge]:
    """The judges trained without each fold, trained once per run."""
    from benchmarks.train_judge import fold_judges

    if not _FOLD_JUDGES:
        _FOLD_JUDGES.extend(fold_judges(cache)[1])
    return _FOLD_JUDGES


def cross_validated(rows: list[dict], policy: Policy) -> dict[str, Score]:
    """Gate and judge alone on `rows` (tune), with and without the embedding model, each
    row judged by the models trained without its fold, with the shipped settings
    (regularisation and thresholds)."""
    from benchmarks.train_judge import fold_of
    from benchmarks.vector_cache import DEFAULT, VectorCache

    cache = VectorCache(DEFAULT)
    judges = _fold_judges(cache)
    out: dict[str, dict[int, tuple[str, str]]] = {}
    for k, judge in enumerate(judges):
        mine = [i for i, r in enumerate(rows) if fold_of(r["concept"]) == k]
        part = [rows[i] for i in mine]
        chars = Judge(None, chars=judge.chars)
        for name, s in (
            ("gate", score(part, judge=judge, policy=policy)),
            ("alone", score_judge_alone(part, judge=judge)),
            ("gate_chars", score(part, judge=chars, policy=policy)),
            ("alone_chars", score_judge_alone(part, judge=chars)),
        ):
            for j, i in enumerate(mine):
                out.setdefault(name, {})[i] = (s.predicted[j], s.details[j])
    cache.save()
    return {
        name: Score(
            rows, [got[i][0] for i in range(len(rows))], [got[i][1] for i in range(len(rows))]
        )
        for name, got in out.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--parts",
        default="tune,heldout,final,blind,heldout2,heldout3,heldout4,heldout5,heldout6,heldout7,heldout8,heldout9,heldout10,heldout11,heldout12,heldout13,heldout14,heldout15,heldout16,heldout17,heldout18,heldout19,heldout20,heldout21,heldout22,heldout23,heldout24,heldout25,heldout26,heldout27,heldout28,heldout29,heldout30,heldout31,heldout32,heldout33,heldout34,heldout35,heldout36,heldout37,heldout38,heldout39,heldout40,heldout41,heldout42,heldout43,heldout44,heldout45,heldout46,heldout47,heldout48,heldout49,heldout50,heldout51,heldout52,heldout53,heldout54,heldout55,heldout56,heldout57,heldout58,heldout59,heldout60,heldout61,heldout62,heldout63,heldout64,heldout65,heldout66,heldout67,heldout68,heldout69,heldout70,heldout71,heldout72,heldout73,heldout74,heldout75,heldout76,heldout77,heldout78,heldout79,heldout80,heldout81,heldout82,heldout83,heldout84,heldout85,heldout86,heldout87,heldout88,heldout89,heldout90,heldout91,heldout92,heldout93,heldout94,heldout95,heldout96,heldout97,heldout98,heldout99,heldout100,heldout101,heldout102,heldout103,heldout104,heldout105,heldout106,heldout107,heldout108,heldout109,heldout110,heldout111,heldout112,heldout113,heldout114,heldout115,heldout116,heldout117,heldout118,heldout119,heldout120,heldout121,heldout122,heldout123,heldout124,heldout125,heldout126,heldout127,heldout128,heldout129,heldout130,heldout131,heldout132,heldout133,heldout134,heldout135,heldout136,heldout137,heldout138,heldout139,heldout140,heldout141,heldout142,heldout143,heldout144,heldout145,heldout146,heldout147,heldout148,heldout149,heldout150,heldout151,heldout152,heldout153,heldout154,heldout155,heldout156,heldout157,heldout158,heldout159,heldout160,heldout161,heldout162,heldout163,heldout164,heldout165,heldout166,heldout167,heldout168,heldout169,heldout170,heldout171,heldout172,heldout173,heldout174,heldout175,heldout176",
    )
    parser.add_argument("--errors", action="store_true", help="list every wrong verdict")
    parser.add_argument(
        "--no-cv", action="store_true", help="training parts: only the shipped judges"
    )
    args = parser.parse_args()
    policy = Policy()
    judge = Judge(Embedder()) if semantic_available() else None
    chars = Judge(None)  # the judgement without the semantic extra: n-grams alone
    for part in args.parts.split(","):
        if not (CORPUS / f"{part}.jsonl").exists():
            continue
        rows = load(part)
        # Embedding is timed apart: in a turn the same batch also fills the vector cache.
        started = time.perf_counter()
        if judge:
            judge.prepare([r["text"].strip() for r in rows])
        embed_ms = (time.perf_counter() - started) * 1000 / len(rows)
        started = time.perf_counter()
        full = score(rows, judge=judge, policy=policy) if judge else None
        per_row_ms = (time.perf_counter() - started) * 1000 / len(rows)
        rules = score(rows, judge=None, policy=policy)
        alone = score_judge_alone(rows, judge=judge) if judge else None
        chars_gate = score(rows, judge=chars, policy=policy)
        chars_alone = score_judge_alone(rows, judge=chars)
        trained = part in TRAIN_PARTS
        cv = cross_validated(rows, policy) if judge and trained and not args.no_cv else None
        shipped = " (shipped)" if trained else ""
        print(f"\n## {part}: {len(rows)} candidates")
        print(
            f"{'configuration':<32} {'accuracy':>8} {'secret R':>8} {'inject R':>8} "
            f"{'near-miss':>9} {'durable R':>8}"
        )
        print(summary("rules alone", rules))
        if cv:
            print(summary("n-grams alone (CV)", cv["alone_chars"]))
            print(summary("rules + n-grams (CV)", cv["gate_chars"]))
        print(summary("n-grams alone" + shipped, chars_alone))
        print(summary("rules + n-grams" + shipped, chars_gate))
        if cv:
            print(summary("judge alone (CV)", cv["alone"]))
            print(summary("rules + judge (gate) (CV)", cv["gate"]))
        if full and alone:
            print(summary("judge alone" + shipped, alone))
            print(summary("rules + judge (gate)" + shipped, full))
            print(
                f"time per candidate: embedding {embed_ms:.1f} ms, then rules and judge "
                f"{per_row_ms:.2f} ms"
            )
        shown = cv["gate"] if cv else full or chars_gate
        print()
        print(confusion_table(shown))
        print()
        print(per_class(shown))
        if args.errors:
            print()
            for row, got, detail in shown.errors():
                print(f"  {row['id']} {row['label']}->{got}: {row['text'][:90]!r} · {detail}")


if __name__ == "__main__":
    main()
